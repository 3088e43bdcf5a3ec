"""relu: max(x, 0), elementwise over a float matrix.

Memory-bound: one read and one write per element. The kernel streams row-major blocks whose
column extent covers whole rows (contiguous 16-byte loads); blocks divide the array (Pallas's
Triton lowering does not mask edge blocks).
Exact at every dtype (it selects values), so it runs in the input's dtype.
"""

import jax.numpy as jnp

from pallasbench import task as tl
from pallasbench.kernels import elementwise

NAME = "relu"
LEVEL = 1
CATEGORY = "activation"
INPUTS = (tl.Input("x", tl.REAL),)
SHAPES = tl.sizes(medium={"x": (4096, 4096)}, small={"x": (512, 512)},
                  large={"x": (16384, 16384)})
TOLERANCE = tl.ELEMENTWISE
USES_TF32 = False
ORDER_DEPENDENT = False
STRESS = tl.stress_cases("tiny", "large", offset=tl.NO_ROW_STATISTIC,
                         degenerate=tl.NO_DISCRETE_INPUT, distinct=tl.NO_DISCRETE_INPUT)


def make_inputs(rng, shapes):
    return (tl.normal(rng, shapes["x"]),)


def reference(x):
    return jnp.maximum(x, 0.0)


def _relu_body(x_ref, o_ref):
    o_ref[...] = jnp.maximum(x_ref[...], 0.0)


def kernel(x):
    return elementwise.map_blocks(_relu_body, x, stream=True, name=NAME)


def flops(shapes):
    rows, cols = shapes["x"]
    return rows * cols


def bytes_moved(shapes, itemsize=4):
    # x read and the output written once, floats at `itemsize` bytes (4 at float32, 2 at
    # bfloat16/float16).
    rows, cols = shapes["x"]
    return 2 * rows * cols * itemsize
