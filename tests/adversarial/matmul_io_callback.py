"""DEGENERATE (f) host callback on matmul: jax.experimental.io_callback runs numpy's matmul on
the host; a token pallas_call copies the product.

Correct (allclose passes: numpy's float32 matmul is within the MATMUL tolerance); only
source_analysis can catch it (an io_callback outside any pallas_call, 0% of the FLOPs inside).
"""
import jax
import numpy as np
from jax.experimental import io_callback
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton


def _np_matmul(a, b):
    return np.matmul(np.asarray(a, np.float32), np.asarray(b, np.float32)).astype(np.float32)


def _copy(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def kernel(a, b):
    shape = (a.shape[0], b.shape[1])
    c = io_callback(_np_matmul, jax.ShapeDtypeStruct(shape, a.dtype), a, b)
    rows, cols = shape
    br = max(1, min(rows, 8192 // cols))
    spec = pl.BlockSpec((br, cols), lambda i: (i, 0))
    return pl.pallas_call(_copy, out_shape=jax.ShapeDtypeStruct(shape, a.dtype),
                          grid=(rows // br,), in_specs=[spec], out_specs=spec,
                          compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(c)
