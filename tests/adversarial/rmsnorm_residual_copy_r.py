"""DEGENERATE (a) copy kernel on rmsnorm_residual: returns a Pallas copy of the residual r.

rmsnorm(x) + r with x, r ~ N(0, 1): the copy misses the whole rmsnorm(x) term (relative norm
error ~0.7), so correctness says `incorrect`. Its range and std are those of r (~70% of the
reference's), so only input_impact singles it out: perturbing x changes nothing.
"""
import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton


def _copy(r_ref, o_ref):
    o_ref[...] = r_ref[...]


def kernel(x, r):
    del x  # ignored
    rows, cols = r.shape
    br = max(1, min(rows, 8192 // cols))
    spec = pl.BlockSpec((br, cols), lambda i: (i, 0))
    return pl.pallas_call(_copy, out_shape=jax.ShapeDtypeStruct(r.shape, r.dtype),
                          grid=(rows // br,), in_specs=[spec], out_specs=spec,
                          compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(r)
