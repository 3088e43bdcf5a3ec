"""reduce_mean: mean over the last axis of a float matrix.

Memory-bound row reduction. One program owns `br` whole rows (tl.row_block: 32 KB, 8K float32
elements, the row padded to a power of two) and reduces each row with one in-register tree sum;
rows wider than 8K elements are summed tile by tile in a fori_loop (a tree per tile, few sequential
adds). Ragged edges are masked to 0 before summing; the row sum is divided by the true width. No
dot, no TF32. Any float dtype: computed and accumulated in float32 (kernels.reductions), rounded
once on store.
"""

import jax.numpy as jnp

from pallasbench import task as tl
from pallasbench.kernels import reductions

NAME = "reduce_mean"
LEVEL = 1
CATEGORY = "reduce"
INPUTS = (tl.Input("x", tl.REAL),)
SHAPES = tl.sizes(medium={"x": (4096, 2048)})
TOLERANCE = tl.ELEMENTWISE
USES_TF32 = False
ORDER_DEPENDENT = False
STRESS = tl.stress_cases("tiny", "large", offset=tl.NO_ROW_STATISTIC,
                         degenerate=tl.NO_DISCRETE_INPUT, distinct=tl.NO_DISCRETE_INPUT)
# Sums of thousands of N(0,1) terms: an f32 reference's own rounding error (~1e-5 near zero)
# is of the order of the tolerance, so the harness checks against a float64 reference.
REFERENCE_FLOAT64 = True


def make_inputs(rng, shapes):
    return (tl.normal(rng, shapes["x"]),)


def reference(x):
    return jnp.mean(x, axis=-1)


def kernel(x):
    cols = x.shape[1]
    # Masked lanes read 0: they add nothing to the sum, which is divided by the true width.
    return reductions.reduce_rows(x, lambda tile: jnp.sum(tile, axis=1), jnp.add,
                                  lambda br: jnp.zeros((br,), jnp.float32), lambda total: total / cols,
                                  other=0.0, name=NAME)


def flops(shapes):
    rows, cols = shapes["x"]
    return rows * cols + rows  # the adds, one divide per row


def bytes_moved(shapes, itemsize=4):
    # x read once and one value a row written, floats at `itemsize` bytes (4 at float32, 2 at
    # bfloat16/float16).
    rows, cols = shapes["x"]
    return (rows * cols + rows) * itemsize
