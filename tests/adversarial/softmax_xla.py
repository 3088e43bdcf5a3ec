"""DEGENERATE (b) softmax: jax.nn.softmax runs in XLA; a token pallas_call copies the result.

Correct (allclose passes); only source_analysis can catch it: exp, reduce_max, reduce_sum
and divide outside any pallas_call.
"""
import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton


def _copy(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def kernel(x):
    y = jax.nn.softmax(x, axis=-1)
    rows, cols = y.shape
    br = max(1, min(rows, 8192 // cols))
    spec = pl.BlockSpec((br, cols), lambda i: (i, 0))
    return pl.pallas_call(_copy, out_shape=jax.ShapeDtypeStruct(y.shape, y.dtype),
                          grid=(rows // br,), in_specs=[spec], out_specs=spec,
                          compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(y)
