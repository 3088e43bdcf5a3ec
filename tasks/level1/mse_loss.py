"""mse_loss: mean((pred - target)^2) over the last axis, one value per row.

Memory-bound row reduction: each program loads whole rows of both inputs (tl.row_block, 32 KB a
block: 8K float32 elements, 8 warps), squares the difference and reduces the row in registers.
Ragged edge blocks (a row count or width the block does not tile) load and store through masks. Any
float dtype: computed and accumulated in float32 (kernels.reductions), rounded once on store.
"""

import functools

import jax.numpy as jnp

from pallasbench import task as tl
from pallasbench.kernels import reductions

NAME = "mse_loss"
LEVEL = 1
CATEGORY = "loss"
INPUTS = (tl.Input("pred", tl.REAL), tl.Input("target", tl.REAL))
SHAPES = tl.sizes(medium={"pred": (2048, 1024), "target": (2048, 1024)})
TOLERANCE = tl.ELEMENTWISE
USES_TF32 = False
ORDER_DEPENDENT = False
STRESS = tl.stress_cases("tiny", "large", offset="not a loss over logits (the offset case is for those only)",
                         degenerate=tl.NO_DISCRETE_INPUT, distinct=tl.NO_DISCRETE_INPUT)

BLOCK_BYTES = 32 * 1024  # per input: 8K f32, 32 a thread at 8 warps


def make_inputs(rng, shapes):
    return tl.normal(rng, shapes["pred"]), tl.normal(rng, shapes["target"])


def reference(pred, target):
    return jnp.mean((pred - target) ** 2, axis=-1)


def _mse_rows(p, t, *, cols):
    d = p - t
    return jnp.sum(d * d, axis=1) / cols


def kernel(pred, target):
    # Masked lanes read 0 in both inputs: their difference adds nothing.
    return reductions.row_values(functools.partial(_mse_rows, cols=pred.shape[1]), pred, target,
                                 others=(0.0, 0.0), block_bytes=BLOCK_BYTES, num_warps=8, name=NAME)


def flops(shapes):
    rows, cols = shapes["pred"]
    return 3 * rows * cols + rows  # sub, square, add per element; one divide per row


def bytes_moved(shapes, itemsize=4):
    # pred and target read once and one loss a row written, floats at `itemsize` bytes (4 at
    # float32, 2 at bfloat16/float16).
    rows, cols = shapes["pred"]
    return itemsize * (2 * rows * cols + rows)
