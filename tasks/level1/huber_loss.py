"""huber_loss: per-row mean of the Huber loss (delta = 1) of pred - target.

Memory-bound row reduction: each program loads whole rows of both inputs (tl.row_block, 32 KB a
block: 8K float32 elements, 8 warps), applies the piecewise loss elementwise and reduces the row in
registers. Ragged edge blocks (a row count or width the block does not tile) load and store through
masks. Any float dtype: computed and accumulated in float32 (kernels.reductions), rounded once on
store.
"""

import functools

import jax.numpy as jnp

from pallasbench import task as tl
from pallasbench.kernels import reductions

NAME = "huber_loss"
LEVEL = 1
CATEGORY = "loss"
INPUTS = (tl.Input("pred", tl.REAL), tl.Input("target", tl.REAL))
SHAPES = tl.sizes(medium={"pred": (2048, 1024), "target": (2048, 1024)})
TOLERANCE = tl.ELEMENTWISE
USES_TF32 = False
ORDER_DEPENDENT = False
STRESS = tl.stress_cases("tiny", "large", offset="not a loss over logits (the offset case is for those only)",
                         degenerate=tl.NO_DISCRETE_INPUT, distinct=tl.NO_DISCRETE_INPUT)

DELTA = 1.0
BLOCK_BYTES = 32 * 1024  # per input: 8K f32, 32 a thread at 8 warps


def make_inputs(rng, shapes):
    # x3 scale: differences of std ~4 put most elements on the linear branch, some on each.
    return tl.normal(rng, shapes["pred"], 3.0), tl.normal(rng, shapes["target"], 3.0)


def _huber(d):
    a = jnp.abs(d)
    return jnp.where(a <= DELTA, 0.5 * d * d, DELTA * (a - 0.5 * DELTA))


def reference(pred, target):
    return jnp.mean(_huber(pred - target), axis=-1)


def _huber_rows(p, t, *, cols):
    return jnp.sum(_huber(p - t), axis=1) / cols  # masked lanes: huber(0) = 0


def kernel(pred, target):
    return reductions.row_values(functools.partial(_huber_rows, cols=pred.shape[1]), pred, target,
                                 others=(0.0, 0.0), block_bytes=BLOCK_BYTES, num_warps=8, name=NAME)


def flops(shapes):
    rows, cols = shapes["pred"]
    # sub, abs, compare, the taken branch (2), add per element; one divide per row
    return 6 * rows * cols + rows


def bytes_moved(shapes, itemsize=4):
    # pred and target read once and one loss a row written, floats at `itemsize` bytes (4 at
    # float32, 2 at bfloat16/float16).
    rows, cols = shapes["pred"]
    return itemsize * (2 * rows * cols + rows)
