"""cosine_sim: dot(x, y) / (|x| |y| + 1e-8) per row.

A rows-family loss (pallasbench/task/families/rows.py; kernel: reductions.row_values, whole rows of
both inputs a program, ragged edge blocks through masks, float32 sums at every dtype): the three
row sums x.y, x.x, y.y in registers in one pass over 32 KB blocks of x and y (8K float32 elements,
8 warps). Tunable launch shape: row_values' "block_bytes" and "num_warps" (pallasbench.task.tuning).

Mosaic GPU (the preferred backend, kernels/mosaic_reductions.py): the per-row fold of that family,
TMA-pipelined (rows, 256-column) tiles of x and y, the three sums carried in float32 across a
row's tiles; square roots as Newton-refined rsqrts.
"""

import jax.numpy as jnp

from pallasbench import task as tl
from pallasbench.task import tuning
from pallasbench.kernels import mosaic_reductions, reductions
from pallasbench.task.families.rows import ORDER_DEPENDENT, USES_TF32
from pallasbench.task.families.rows import LOSS_STRESS as STRESS, row_loss_bytes as bytes_moved

NAME = "cosine_sim"
LEVEL = 1
CATEGORY = "loss"
INPUTS = (tl.Input("x", tl.REAL), tl.Input("y", tl.REAL))
SHAPES = tl.sizes(medium={"x": (2048, 1024), "y": (2048, 1024)})
TOLERANCE = tl.ELEMENTWISE

EPS = 1e-8
BLOCK_BYTES = 32 * 1024  # per input: 8K f32, 32 a thread at 8 warps


def make_inputs(rng, shapes):
    return tl.normal(rng, shapes["x"]), tl.normal(rng, shapes["y"])


def reference(x, y):
    dot = jnp.sum(x * y, axis=-1)
    norms = jnp.sqrt(jnp.sum(x * x, axis=-1)) * jnp.sqrt(jnp.sum(y * y, axis=-1))
    return dot / (norms + EPS)


def _cosine_rows(x, y):
    dot = jnp.sum(x * y, axis=1)
    norms = jnp.sqrt(jnp.sum(x * x, axis=1)) * jnp.sqrt(jnp.sum(y * y, axis=1))
    return dot / (norms + EPS)


# Chosen on the H200 by bench/probe.py over bench/variants/rows.py
# (bench/results/2026-12-03-h200-tuning2/).
TUNED = tuning.Tuned(gpu="NVIDIA H200", source="bench/results/2026-12-03-h200-tuning2", configs={
    "medium": {"float32": {"block_bytes": 8192, "num_warps": 2}},
})


@tuning.tuned_kernel(NAME, SHAPES, INPUTS, TUNED)
def kernel(x, y):
    # Masked lanes read 0: they add nothing to any of the three sums.
    return reductions.row_values(_cosine_rows, x, y, others=(0.0, 0.0), block_bytes=BLOCK_BYTES,
                                 num_warps=8, name=NAME)


# The Mosaic GPU implementation (plgpu.kernel, kernels/mosaic_reductions.py): the preferred backend.
BACKENDS = {"mosaic_gpu": mosaic_reductions.KERNELS[NAME], "triton": kernel}


def flops(shapes):
    rows, cols = shapes["x"]
    # three products and three adds per element; two sqrt, mul, add, divide per row
    return 6 * rows * cols + 5 * rows
