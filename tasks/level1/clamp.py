"""clamp: clip(x, -1, 1), elementwise over a float matrix (N(0, 4)).

Memory-bound: one read and one write per element. The kernel streams row-major blocks of 32 KB
(8K float32 elements) whose column extent covers whole rows (contiguous 16-byte loads);
blocks divide the array (the block rule refuses ragged ones: Pallas's Triton lowering does not
mask edge blocks).
Exact at every dtype (it selects values), so it runs in the input's dtype.
"""

import jax.numpy as jnp

from pallasbench import task as tl
from pallasbench.kernels import elementwise

NAME = "clamp"
LEVEL = 1
CATEGORY = "elementwise"
INPUTS = (tl.Input("x", tl.REAL),)
SHAPES = tl.sizes(medium={"x": (4096, 4096)})
TOLERANCE = tl.ELEMENTWISE
USES_TF32 = False
ORDER_DEPENDENT = False
STRESS = tl.stress_cases("tiny", "large", offset=tl.NO_ROW_STATISTIC,
                         degenerate=tl.NO_DISCRETE_INPUT, distinct=tl.NO_DISCRETE_INPUT)


def make_inputs(rng, shapes):
    return (tl.normal(rng, shapes["x"], 2.0),)


def reference(x):
    return jnp.clip(x, -1.0, 1.0)


def _clamp_body(x_ref, o_ref):
    o_ref[...] = jnp.clip(x_ref[...], -1.0, 1.0)


def kernel(x):
    return elementwise.map_blocks(_clamp_body, x, stream=True, name=NAME)


def flops(shapes):
    rows, cols = shapes["x"]
    return 2 * rows * cols  # max, min


def bytes_moved(shapes, itemsize=4):
    # x read and the output written once, floats at `itemsize` bytes (4 at float32, 2 at
    # bfloat16/float16).
    rows, cols = shapes["x"]
    return 2 * rows * cols * itemsize
