"""softmax over the last axis of a float matrix.

A rows-family task (pallasbench/task/families/rows.py: inputs, stress cases, byte model).
Memory-bound: one read and one write per element. One program owns `br` whole rows (tl.row_block:
32 KB, 8K float32 elements, the row padded to a power of two) and keeps them in registers: row max,
exp, row sum and the normalised write are fused, so x is read once. Rows wider than 8K elements
take two passes over column tiles (online max/sum, then the write). Masked lanes read as -inf (exp
gives 0). No dot, no TF32. Any float dtype: computed in float32 (kernels.rowwise), rounded once on
store.
"""

import jax
import jax.numpy as jnp

from pallasbench import task as tl
from pallasbench.kernels import rowwise
from pallasbench.kernels import mosaic_rows
from pallasbench.task.families.rows import INPUTS, ORDER_DEPENDENT, STRESS, USES_TF32, bytes_moved, make_inputs

NAME = "softmax"
LEVEL = 1
CATEGORY = "softmax"
SHAPES = tl.sizes(medium={"x": (2048, 2048)}, small={"x": (256, 256)},
                  large={"x": (8192, 8192)})
TOLERANCE = tl.ELEMENTWISE


def reference(x):
    return jax.nn.softmax(x, axis=-1)


def _softmax_whole(x, block):
    e = jnp.exp(x - jnp.max(x, axis=1, keepdims=True))
    # One reciprocal per row instead of a divide per element.
    inv = 1.0 / jnp.sum(e, axis=1, keepdims=True)
    return e * inv


def _softmax_tiled(block):
    m, s = rowwise.online_max_sum(block)
    inv = 1.0 / s
    block.write(lambda x: jnp.exp(x - m) * inv)


def kernel(x):
    # Masked lanes read -inf: they never win the max and exp gives 0.
    return rowwise.map_rows(x, _softmax_whole, _softmax_tiled, other=-jnp.inf, name=NAME)


# The Mosaic GPU implementation (plgpu.kernel, kernels/mosaic_rows.py): the preferred backend.
BACKENDS = {"mosaic_gpu": mosaic_rows.KERNELS[NAME], "triton": kernel}


def flops(shapes):
    rows, cols = shapes["x"]
    return 5 * rows * cols  # max, subtract, exp, sum, scale
