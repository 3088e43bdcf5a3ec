"""DEGENERATE (b) matmul: XLA's jnp.dot does the work outside; a token pallas_call copies it.

All 2*M*N*K FLOPs run in XLA; the Pallas kernel only moves the finished product. Correct
(a plain allclose passes); only source_analysis can catch it (a dot_general outside any
pallas_call, 0% of the task's FLOPs inside).
"""
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton


def _copy(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def kernel(a, b):
    c = jnp.dot(a, b, precision=lax.Precision.HIGHEST)
    rows, cols = c.shape
    br = max(1, min(rows, 8192 // cols))
    spec = pl.BlockSpec((br, cols), lambda i: (i, 0))
    return pl.pallas_call(_copy, out_shape=jax.ShapeDtypeStruct(c.shape, c.dtype),
                          grid=(rows // br,), in_specs=[spec], out_specs=spec,
                          compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(c)
