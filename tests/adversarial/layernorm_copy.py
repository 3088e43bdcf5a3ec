"""DEGENERATE (a) copy kernel on layernorm, the closest task to an identity.

Rows of 256 N(0, 1) values already have mean ~0 and std ~1, so layernorm(x) is close to x:
the copy errs by ~0.1 (relative norm error ~0.08), far above the 1e-5 tolerance, so
correctness says `incorrect`. The copy's output has the reference's range, std and variation,
and its response to a 5% perturbation of x differs from the reference's by only ~10%
(layernorm's Jacobian is close to the identity here); nothing runs outside the pallas_call.
No robustness filter singles it out by itself: correctness is what rejects it.
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
