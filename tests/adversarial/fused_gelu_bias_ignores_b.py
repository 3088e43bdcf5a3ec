"""DEGENERATE (h) ignoring an input on fused_gelu_bias: computes gelu(x) and never reads b.

No task at SMALL has an input whose whole effect stays inside the tolerance (b ~ N(0, 1) here
shifts every gelu argument by O(1)), so this closest real case is already `incorrect` by
correctness. The filter meant for it is input_impact: perturbing b moves the reference but
not this output. Range, std and variation along both axes look like the reference's.
"""
import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton


def _body(x_ref, o_ref):
    o_ref[...] = jax.nn.gelu(x_ref[...], approximate=True)


def kernel(x, b):
    del b  # ignored
    rows, cols = x.shape
    bc = min(cols, 512)
    br = min(rows, 8192 // bc)
    spec = pl.BlockSpec((br, bc), lambda i, j: (i, j))
    return pl.pallas_call(_body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          grid=(rows // br, cols // bc), in_specs=[spec], out_specs=spec,
                          compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(x)
