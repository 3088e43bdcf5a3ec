"""DEGENERATE (d) wrong dtype on softmax: a real Pallas row softmax in float32, its result cast
to float16 outside the kernel.

Correctness says `incorrect` (dtype float16 differs from the reference's float32; an allclose
that ignores dtypes would still fail: float16 carries ~5e-4 relative error and flushes the
smallest probabilities to subnormals). source_analysis flags the convert_element_type outside
the pallas_call.
"""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton


def _softmax_rows(x_ref, o_ref):
    x = x_ref[...]
    e = jnp.exp(x - jnp.max(x, axis=1, keepdims=True))
    o_ref[...] = e / jnp.sum(e, axis=1, keepdims=True)


def kernel(x):
    rows, cols = x.shape
    br = max(1, min(rows, 8192 // cols))
    spec = pl.BlockSpec((br, cols), lambda i: (i, 0))
    y = pl.pallas_call(_softmax_rows, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                       grid=(rows // br,), in_specs=[spec], out_specs=spec,
                       compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(x)
    return y.astype(jnp.float16)
