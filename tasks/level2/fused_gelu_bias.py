"""fused_gelu_bias: gelu(x + b) (tanh approximation), b broadcast along rows.

Memory-bound: x is read once and the result written once; the bias add never round-trips
through memory. Row-major blocks span whole rows (contiguous 16-byte loads), the matching
bias slice rides along as a 1-D block. Ragged shapes are zero-padded outside to whole blocks.
Computed in float32 at every dtype, rounded once on store.
"""

import jax
import jax.numpy as jnp

from pallasbench import task as tl
from pallasbench.kernels import elementwise

NAME = "fused_gelu_bias"
LEVEL = 2
CATEGORY = "activation"
INPUTS = (tl.Input("x", tl.REAL), tl.Input("b", tl.REAL))
SHAPES = tl.sizes(medium={"x": (4096, 4096), "b": (4096,)})
TOLERANCE = tl.TRANSCENDENTAL
USES_TF32 = False
ORDER_DEPENDENT = False
STRESS = tl.stress_cases("tiny", "large", offset=tl.NO_ROW_STATISTIC,
                         degenerate=tl.NO_DISCRETE_INPUT, distinct=tl.NO_DISCRETE_INPUT)

# add, x^3 (2), *0.044715, +x, *sqrt(2/pi), tanh, +1, *0.5, *x
FLOPS_PER_ELEMENT = 10


def make_inputs(rng, shapes):
    return tl.normal(rng, shapes["x"]), tl.normal(rng, shapes["b"])


def reference(x, b):
    return jax.nn.gelu(x + b, approximate=True)


def _body(x_ref, b_ref, o_ref):
    y = x_ref[...].astype(jnp.float32) + b_ref[...].astype(jnp.float32)[None, :]
    o_ref[...] = jax.nn.gelu(y, approximate=True).astype(o_ref.dtype)


def kernel(x, b):
    return elementwise.map_blocks(_body, x, b, pad_edges=True, name=NAME)


def flops(shapes):
    rows, cols = shapes["x"]
    return FLOPS_PER_ELEMENT * rows * cols


def bytes_moved(shapes, itemsize=4):
    # x read and the output written once, b read once, floats at `itemsize` bytes (4 at
    # float32, 2 at bfloat16/float16).
    rows, cols = shapes["x"]
    return (2 * rows * cols + cols) * itemsize
