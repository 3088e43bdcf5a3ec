"""DEGENERATE (b) reduce_sum: jnp.sum in XLA; a token pallas_call copies the (rows,) vector.

Correct (allclose passes; XLA's f32 sum of 256 terms is well inside the tolerance of the
float64 reference). Only source_analysis can catch it: reduce_sum outside any pallas_call.
"""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton


def _copy(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def kernel(x):
    s = jnp.sum(x, axis=-1)
    (rows,) = s.shape
    br = min(rows, 1024)
    spec = pl.BlockSpec((br,), lambda i: (i,))
    return pl.pallas_call(_copy, out_shape=jax.ShapeDtypeStruct(s.shape, s.dtype),
                          grid=(rows // br,), in_specs=[spec], out_specs=spec,
                          compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(s)
