"""reduce_max: max over the last axis of a float matrix.

Memory-bound row reduction. One program owns `br` whole rows (tl.row_block: 32 KB, 8K float32
elements, the row padded to a power of two) and reduces each row with one in-register max; rows
wider than 8K elements are reduced tile by tile in a fori_loop. Ragged edges are masked to -inf
before the max. No dot, no TF32. Any float dtype: computed and accumulated in float32
(kernels.reductions), rounded once on store. Tunable launch shape: reduce_rows' keys
(kernels.rowwise, pallasbench.task.tuning).
"""

import jax.numpy as jnp

from pallasbench import task as tl
from pallasbench.kernels import reductions

NAME = "reduce_max"
LEVEL = 1
CATEGORY = "reduce"
INPUTS = (tl.Input("x", tl.REAL),)
SHAPES = tl.sizes(medium={"x": (4096, 2048)})
TOLERANCE = tl.ELEMENTWISE
USES_TF32 = False
ORDER_DEPENDENT = False
STRESS = tl.stress_cases("tiny", "large", offset=tl.NO_ROW_STATISTIC,
                         degenerate=tl.NO_DISCRETE_INPUT, distinct=tl.NO_DISCRETE_INPUT)


def make_inputs(rng, shapes):
    return (tl.normal(rng, shapes["x"]),)


def reference(x):
    return jnp.max(x, axis=-1)


def kernel(x):
    # Masked lanes read -inf: they never win the max.
    return reductions.reduce_rows(x, lambda tile: jnp.max(tile, axis=1), jnp.maximum,
                                  lambda br: jnp.full((br,), -jnp.inf, jnp.float32), lambda best: best,
                                  other=-jnp.inf, name=NAME)


def flops(shapes):
    rows, cols = shapes["x"]
    return rows * cols  # one comparison per element


def bytes_moved(shapes, itemsize=4):
    # x read once and one value a row written, floats at `itemsize` bytes (4 at float32, 2 at
    # bfloat16/float16).
    rows, cols = shapes["x"]
    return (rows * cols + rows) * itemsize
