"""huber_loss: per-row mean of the Huber loss (delta = 1) of pred - target.

A rows-family loss (pallasbench/task/families/rows.py; kernel: reductions.row_values, whole rows of
both inputs a program, ragged edge blocks through masks, float32 sums at every dtype) that applies
the piecewise loss elementwise in registers before reducing the row; 32 KB blocks of each input,
8 warps.
"""

import functools

import jax.numpy as jnp

from pallasbench import task as tl
from pallasbench.kernels import reductions
from pallasbench.kernels import mosaic_reductions
from pallasbench.task.families.rows import ORDER_DEPENDENT, USES_TF32
from pallasbench.task.families.rows import LOSS_STRESS as STRESS, row_loss_bytes as bytes_moved

NAME = "huber_loss"
LEVEL = 1
CATEGORY = "loss"
INPUTS = (tl.Input("pred", tl.REAL), tl.Input("target", tl.REAL))
SHAPES = tl.sizes(medium={"pred": (2048, 1024), "target": (2048, 1024)})
TOLERANCE = tl.ELEMENTWISE

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


# The Mosaic GPU implementation (plgpu.kernel, kernels/mosaic_reductions.py): the preferred backend.
BACKENDS = {"mosaic_gpu": mosaic_reductions.KERNELS[NAME], "triton": kernel}


def flops(shapes):
    rows, cols = shapes["pred"]
    # sub, abs, compare, the taken branch (2), add per element; one divide per row
    return 6 * rows * cols + rows
