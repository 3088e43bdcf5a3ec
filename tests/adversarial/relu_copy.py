"""DEGENERATE (a) copy kernel on relu: the Pallas kernel copies x and does no work.

relu of N(0, 1) data zeroes half the elements, so a copy is far outside the tolerance:
correctness already says `incorrect`. input_impact would catch it even if it were within
tolerance: perturbing x changes every output of the copy, while the reference's output moves
only where x > 0.
"""
import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton


def _copy(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def kernel(x):
    rows, cols = x.shape
    br = max(1, min(rows, 8192 // cols))
    spec = pl.BlockSpec((br, cols), lambda i: (i, 0))
    return pl.pallas_call(_copy, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          grid=(rows // br,), in_specs=[spec], out_specs=spec,
                          compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(x)
