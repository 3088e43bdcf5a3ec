"""hardswish: x * clip(x + 3, 0, 6) / 6, elementwise over a float matrix (N(0, 9)).

Memory-bound: one read and one write per element. The kernel streams row-major blocks of 32 KB
(8K float32 elements) whose column extent covers whole rows (contiguous 16-byte loads);
blocks divide the array (the block rule refuses ragged ones: Pallas's Triton lowering does not
mask edge blocks).
Same operation order as the reference.
Computed in float32 at every dtype: bfloat16/float16 inputs are upcast on load and the result
is rounded once on store.
"""

import jax.numpy as jnp

from pallasbench import task as tl
from pallasbench.kernels import elementwise

NAME = "hardswish"
LEVEL = 1
CATEGORY = "activation"
INPUTS = (tl.Input("x", tl.REAL),)
SHAPES = tl.sizes(medium={"x": (4096, 4096)})
TOLERANCE = tl.ELEMENTWISE
USES_TF32 = False
ORDER_DEPENDENT = False
STRESS = tl.stress_cases("tiny", "large", offset=tl.NO_ROW_STATISTIC,
                         degenerate=tl.NO_DISCRETE_INPUT, distinct=tl.NO_DISCRETE_INPUT)


def make_inputs(rng, shapes):
    return (tl.normal(rng, shapes["x"], 3.0),)


def reference(x):
    return x * jnp.clip(x + 3.0, 0.0, 6.0) / 6.0


def _hardswish_body(x_ref, o_ref):
    x = x_ref[...].astype(jnp.float32)
    o_ref[...] = (x * jnp.clip(x + 3.0, 0.0, 6.0) / 6.0).astype(o_ref.dtype)


def kernel(x):
    return elementwise.map_blocks(_hardswish_body, x, stream=True, name=NAME)


def flops(shapes):
    rows, cols = shapes["x"]
    return 5 * rows * cols  # add, max, min, multiply, divide


def bytes_moved(shapes, itemsize=4):
    # x read and the output written once, floats at `itemsize` bytes (4 at float32, 2 at
    # bfloat16/float16).
    rows, cols = shapes["x"]
    return 2 * rows * cols * itemsize
