"""DEGENERATE (f) host callback on softmax: jax.pure_callback computes softmax with numpy on
the host; a token pallas_call copies the result back.

Correct (allclose passes: numpy's float32 softmax is within the tolerance); only
source_analysis can catch it (a pure_callback outside any pallas_call).
"""
import jax
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton


def _np_softmax(x):
    x = np.asarray(x, dtype=np.float32)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)).astype(np.float32)


def _copy(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def kernel(x):
    y = jax.pure_callback(_np_softmax, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
    rows, cols = y.shape
    br = max(1, min(rows, 8192 // cols))
    spec = pl.BlockSpec((br, cols), lambda i: (i, 0))
    return pl.pallas_call(_copy, out_shape=jax.ShapeDtypeStruct(y.shape, y.dtype),
                          grid=(rows // br,), in_specs=[spec], out_specs=spec,
                          compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(y)
