"""reduce_max: max over the last axis of a float matrix.

A rows-family task (pallasbench/task/families/rows.py: inputs, stress cases, byte model).
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
from pallasbench.kernels import mosaic_reductions
from pallasbench.task.families.rows import INPUTS, ORDER_DEPENDENT, USES_TF32, make_inputs
from pallasbench.task.families.rows import REDUCE_STRESS as STRESS, row_reduction_bytes as bytes_moved

NAME = "reduce_max"
LEVEL = 1
CATEGORY = "reduce"
SHAPES = tl.sizes(medium={"x": (4096, 2048)})
TOLERANCE = tl.ELEMENTWISE


def reference(x):
    return jnp.max(x, axis=-1)


def kernel(x):
    # Masked lanes read -inf: they never win the max.
    return reductions.reduce_rows(x, lambda tile: jnp.max(tile, axis=1), jnp.maximum,
                                  lambda br: jnp.full((br,), -jnp.inf, jnp.float32), lambda best: best,
                                  other=-jnp.inf, name=NAME)


# The Mosaic GPU implementation (plgpu.kernel, kernels/mosaic_reductions.py): the preferred backend.
BACKENDS = {"mosaic_gpu": mosaic_reductions.KERNELS[NAME], "triton": kernel}


def flops(shapes):
    rows, cols = shapes["x"]
    return rows * cols  # one comparison per element
