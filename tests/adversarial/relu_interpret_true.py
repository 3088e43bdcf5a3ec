"""DEGENERATE (GPU only) a relu that asks Pallas for interpret mode: on a GPU machine the
"kernel" becomes a loop of XLA ops and no Pallas kernel runs at all.

The module the executor compiles holds no Pallas custom call: refused ("no Pallas kernel call in
the module"). On the CPU the harness forces interpret mode itself (and the analysed CUDA lowering
forces it off), so this case means something only on the GPU: bench/adversarial_gpu.sh runs it.
"""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton


def _relu(x_ref, o_ref):
    o_ref[...] = jnp.maximum(x_ref[...], 0.0)


def kernel(x):
    rows, cols = x.shape
    br = max(1, min(rows, 8192 // cols))
    spec = pl.BlockSpec((br, cols), lambda i: (i, 0))
    return pl.pallas_call(_relu, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          grid=(rows // br,), in_specs=[spec], out_specs=spec, interpret=True,
                          compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(x)
