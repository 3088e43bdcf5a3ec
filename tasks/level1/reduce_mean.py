"""reduce_mean: mean over the last axis of a float matrix.

A rows-family task (pallasbench/task/families/rows.py: inputs, stress cases, byte model).
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
from pallasbench.kernels import mosaic_reductions
from pallasbench.task.families.rows import INPUTS, ORDER_DEPENDENT, USES_TF32, make_inputs
from pallasbench.task.families.rows import REDUCE_STRESS as STRESS, row_reduction_bytes as bytes_moved

NAME = "reduce_mean"
LEVEL = 1
CATEGORY = "reduce"
SHAPES = tl.sizes(medium={"x": (4096, 2048)})
TOLERANCE = tl.ELEMENTWISE


def reference(x):
    return jnp.mean(x, axis=-1)


def kernel(x):
    cols = x.shape[1]
    # Masked lanes read 0: they add nothing to the sum, which is divided by the true width.
    return reductions.reduce_rows(x, lambda tile: jnp.sum(tile, axis=1), jnp.add,
                                  lambda br: jnp.zeros((br,), jnp.float32), lambda total: total / cols,
                                  other=0.0, name=NAME)


# The Mosaic GPU implementation (plgpu.kernel, kernels/mosaic_reductions.py): the preferred backend.
BACKENDS = {"mosaic_gpu": mosaic_reductions.KERNELS[NAME], "triton": kernel}


def flops(shapes):
    rows, cols = shapes["x"]
    return rows * cols + rows  # the adds, one divide per row
