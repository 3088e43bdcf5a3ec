"""mse_loss: mean((pred - target)^2) over the last axis, one value per row.

A rows-family loss (pallasbench/task/families/rows.py; kernel: reductions.row_values, whole rows of
both inputs a program, ragged edge blocks through masks, float32 sums at every dtype): each program
loads 32 KB of each input a block (8K float32 elements, 8 warps), squares the difference and
reduces the row in registers.
"""

import functools

import jax.numpy as jnp

from pallasbench import task as tl
from pallasbench.kernels import reductions
from pallasbench.kernels import mosaic_reductions
from pallasbench.task.families.rows import ORDER_DEPENDENT, USES_TF32
from pallasbench.task.families.rows import LOSS_STRESS as STRESS, row_loss_bytes as bytes_moved

NAME = "mse_loss"
LEVEL = 1
CATEGORY = "loss"
INPUTS = (tl.Input("pred", tl.REAL), tl.Input("target", tl.REAL))
SHAPES = tl.sizes(medium={"pred": (2048, 1024), "target": (2048, 1024)})
TOLERANCE = tl.ELEMENTWISE

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


# The Mosaic GPU implementation (plgpu.kernel, kernels/mosaic_reductions.py): the preferred backend.
BACKENDS = {"mosaic_gpu": mosaic_reductions.KERNELS[NAME], "triton": kernel}


def flops(shapes):
    rows, cols = shapes["pred"]
    return 3 * rows * cols + rows  # sub, square, add per element; one divide per row
