"""DEGENERATE (d) wrong dtype on add: Pallas adds in float32, the result is cast to bfloat16
outside the kernel (half the bytes to write, a bandwidth cheat).

Correctness says `incorrect` (dtype bfloat16 differs from float32; a plain allclose that
ignores dtypes would pass within ~4e-3 relative). source_analysis flags the
convert_element_type outside the pallas_call.
"""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton


def _add(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]


def kernel(x, y):
    rows, cols = x.shape
    br = max(1, min(rows, 8192 // cols))
    spec = pl.BlockSpec((br, cols), lambda i: (i, 0))
    out = pl.pallas_call(_add, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                         grid=(rows // br,), in_specs=[spec, spec], out_specs=spec,
                         compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(x, y)
    return out.astype(jnp.bfloat16)
