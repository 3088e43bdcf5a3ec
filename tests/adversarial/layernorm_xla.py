"""DEGENERATE (b) layernorm: XLA normalises; the pallas_call then does a trivial "* 1.0".

The token kernel multiplies by one so that it is not a bare copy. Correct (allclose passes);
only source_analysis can catch it: reductions, subtract, rsqrt outside any pallas_call.
"""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton


def _scale_by_one(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 1.0


def kernel(x):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
    y = (x - mean) / jnp.sqrt(var + 1e-5)
    rows, cols = y.shape
    br = max(1, min(rows, 8192 // cols))
    spec = pl.BlockSpec((br, cols), lambda i: (i, 0))
    return pl.pallas_call(_scale_by_one, out_shape=jax.ShapeDtypeStruct(y.shape, y.dtype),
                          grid=(rows // br,), in_specs=[spec], out_specs=spec,
                          compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(y)
