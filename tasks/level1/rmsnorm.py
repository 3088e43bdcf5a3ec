"""rmsnorm: x / sqrt(mean(x^2) + 1e-5) over the last axis, no affine.

A rows-family task (pallasbench/task/families/rows.py: inputs, stress cases, byte model).
Memory-bound: one read and one write per element. One program owns `br` whole rows (tl.row_block:
32 KB, 8K float32 elements, the row padded to a power of two) held in registers: the tree sum of
squares and the scaled write come from one read of x. Rows wider than 8K elements stream column
tiles twice (sum of squares, then the write). Masked lanes read as 0. No dot, no TF32. Any float
dtype: computed in float32 (kernels.rowwise), rounded once on store. Tunable launch shape:
map_rows' keys (kernels.rowwise, pallasbench.task.tuning).
"""

import jax.numpy as jnp
from jax import lax

from pallasbench import task as tl
from pallasbench.task import tuning
from pallasbench.kernels import rowwise
from pallasbench.kernels import mosaic_rows
from pallasbench.task.families.rows import EPS, INPUTS, ORDER_DEPENDENT, STRESS, USES_TF32, bytes_moved, make_inputs

NAME = "rmsnorm"
LEVEL = 1
CATEGORY = "normalization"
SHAPES = tl.sizes(medium={"x": (2048, 1024)})
TOLERANCE = tl.ELEMENTWISE


def reference(x):
    return x / jnp.sqrt(jnp.mean(jnp.square(x), axis=-1, keepdims=True) + EPS)


def _rmsnorm_whole(x, block):
    ms = jnp.sum(x * x, axis=1, keepdims=True) / block.cols
    return x * lax.rsqrt(ms + EPS)


def _rmsnorm_tiled(block):
    ss = block.fold(lambda x, col0, acc: acc + jnp.sum(x * x, axis=1, keepdims=True),
                    jnp.zeros((block.br, 1), jnp.float32))
    scale = lax.rsqrt(ss / block.cols + EPS)
    block.write(lambda x: x * scale)


# Chosen on the H200 by bench/probe.py over bench/variants/rows.py
# (bench/results/2026-12-03-h200-tuning2/).
TUNED = tuning.Tuned(gpu="NVIDIA H200", source="bench/results/2026-12-03-h200-tuning2", configs={
    "medium": {
        "float32": {"block_bytes": 16384, "num_warps": 8},
        "bfloat16": {"block_bytes": 4096, "num_warps": 2},
    },
})


@tuning.tuned_kernel(NAME, SHAPES, INPUTS, TUNED)
def kernel(x):
    # Masked lanes read 0: they add nothing to the sum of squares.
    return rowwise.map_rows(x, _rmsnorm_whole, _rmsnorm_tiled, other=0.0, name=NAME)


# The Mosaic GPU implementation (plgpu.kernel, kernels/mosaic_rows.py): the preferred backend.
BACKENDS = {"mosaic_gpu": mosaic_rows.KERNELS[NAME], "triton": kernel}


def flops(shapes):
    rows, cols = shapes["x"]
    return 3 * rows * cols + 2 * rows  # square-accumulate (2), scale; rsqrt per row
