"""layernorm: (x - mean) / sqrt(var + 1e-5) over the last axis, no affine.

A rows-family task (pallasbench/task/families/rows.py: inputs, stress cases, byte model).
Memory-bound: one read and one write per element. One program owns `br` whole rows (tl.row_block:
32 KB, 8K float32 elements, the row padded to a power of two) held in registers: mean, then the
variance of the centred row (two-pass, as the reference), then the scaled write, all from one read
of x. Rows wider than 8K elements stream column tiles twice (per-tile mean/M2 merged with Chan's
formula, then the write). No dot, no TF32.

Pivot-shifted sums: every row is summed as s = x - p, p its first element (exact while x is within
a factor of two of p, Sterbenz), and written as (x - p - mean(s)) * rstd. An offset of 1e3 then
leaves the mean exact to f32 rounding of O(1) values; a plain f32 sum of ~1e3 values would carry
~1e-4 into every output. Any float dtype: computed in float32 (kernels.rowwise), rounded once on
store.

Tunable (pallasbench.task.tuning): map_rows' launch keys (kernels.rowwise) and "stats" for rows
held in registers: "two_pass" (the default: mean, then the centred variance, two dependent row
reductions) or "one_pass" (sum(s) and sum(s^2) reduced together, var = E[s^2] - mean(s)^2: the
two cross-warp reductions overlap instead of queueing; the pivot shift keeps mean(s)^2 within a
few var, so the cancellation costs a few bits of float32, far inside the tolerance).
"""

import jax.numpy as jnp
from jax import lax

from pallasbench import task as tl
from pallasbench.kernels import rowwise
from pallasbench.kernels import mosaic_rows
from pallasbench.task import tuning
from pallasbench.task.families.rows import EPS, INPUTS, ORDER_DEPENDENT, STRESS, USES_TF32, bytes_moved, make_inputs

NAME = "layernorm"
LEVEL = 1
CATEGORY = "normalization"
SHAPES = tl.sizes(medium={"x": (2048, 1024)}, small={"x": (256, 256)},
                  large={"x": (8192, 4096)})
TOLERANCE = tl.ELEMENTWISE


def reference(x):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
    return (x - mean) / jnp.sqrt(var + EPS)


def _centred(x, mean, col0, cols):
    """x - mean with padding lanes zeroed, so they stay out of the sums."""
    d = x - mean
    if cols % x.shape[1] == 0:
        return d
    c = col0 + lax.broadcasted_iota(jnp.int32, x.shape, 1)
    return jnp.where(c < cols, d, 0.0)


def _pivot(block):
    """(br, 1): each row's first element, the shift of its sums (rows past the array read 0)."""
    return block.load(0, 1)


def _layernorm_whole(x, block):
    cols = block.cols
    s = _centred(x, _pivot(block), 0, cols)  # padding lanes: 0, not -p
    mean = jnp.sum(s, axis=1, keepdims=True) / cols
    d = _centred(s, mean, 0, cols)
    var = jnp.sum(d * d, axis=1, keepdims=True) / cols
    return d * lax.rsqrt(var + EPS)


def _layernorm_whole_one_pass(x, block):
    cols = block.cols
    s = _centred(x, _pivot(block), 0, cols)  # padding lanes: 0, not -p
    mean = jnp.sum(s, axis=1, keepdims=True) / cols
    var = jnp.maximum(jnp.sum(s * s, axis=1, keepdims=True) / cols - mean * mean, 0.0)
    return (s - mean) * lax.rsqrt(var + EPS)


def _layernorm_tiled(block):
    """Per-tile (mean, M2) merged across tiles, then a write pass.

    Every tile is shifted by the same pivot, loaded once, so the merged mean is mean(x - p).
    """
    cols = block.cols
    p = _pivot(block)

    def stats(x, col0, carry):
        n_a, mean_a, m2_a = carry
        n_b = jnp.minimum(x.shape[1], cols - col0).astype(jnp.float32)  # >= 1 by construction
        s = _centred(x, p, col0, cols)  # padding lanes: 0, not -p
        mean_b = jnp.sum(s, axis=1, keepdims=True) / n_b
        d = _centred(s, mean_b, col0, cols)
        m2_b = jnp.sum(d * d, axis=1, keepdims=True)
        # Chan et al.: merging centred moments keeps the variance free of cancellation.
        n = n_a + n_b
        w = n_b / n
        delta = mean_b - mean_a
        return n, mean_a + delta * w, m2_a + m2_b + delta * delta * (n_a * w)

    zeros = jnp.zeros((block.br, 1), jnp.float32)
    _, mean, m2 = block.fold(stats, (jnp.float32(0.0), zeros, zeros))
    rstd = lax.rsqrt(m2 / cols + EPS)
    block.write(lambda x: (x - p - mean) * rstd)


# Chosen on the H200 by bench/probe.py over bench/variants/rows.py
# (bench/results/2026-12-03-h200-tuning2/).
TUNED = tuning.Tuned(gpu="NVIDIA H200", source="bench/results/2026-12-03-h200-tuning2", configs={
    "medium": {
        "float32": {"block_bytes": 4096, "num_warps": 2},
        "bfloat16": {"block_bytes": 4096, "num_warps": 2},
    },
})


@tuning.tuned_kernel(NAME, SHAPES, INPUTS, TUNED)
def kernel(x):
    stats = tuning.choice(NAME, "stats", "two_pass")
    whole = {"two_pass": _layernorm_whole, "one_pass": _layernorm_whole_one_pass}[stats]
    # Masked lanes read 0; _centred keeps them at 0 after each shift.
    return rowwise.map_rows(x, whole, _layernorm_tiled, other=0.0, name=NAME)


# The Mosaic GPU implementation (plgpu.kernel, kernels/mosaic_rows.py): the preferred backend.
BACKENDS = {"mosaic_gpu": mosaic_rows.KERNELS[NAME], "triton": kernel}


def flops(shapes):
    rows, cols = shapes["x"]
    # pivot shift, sum, centre, square-accumulate (2), scale; rsqrt per row
    return 6 * rows * cols + 2 * rows
