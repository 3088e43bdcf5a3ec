"""fused_layer_norm_relu: relu((x - mean) / sqrt(var + 1e-5)) over the last axis, no affine.

A rows-family task (pallasbench/task/families/rows.py: inputs, stress cases, byte model).
Memory-bound: x is read once and the result written once. One program owns whole rows (a
power-of-two block, padded columns masked out of the variance), so mean, variance, scaling and relu
all happen in registers. Rows per program are capped to keep >= 256 programs.

Pivot-shifted sums (kernels.rowwise.normalized_rows): each row is summed as x - x[0], so an
offset of 1e3 leaves the mean exact to f32 rounding of O(1) values. Computed in float32 at
every dtype, rounded once on store.

Tunable (pallasbench.task.tuning): padded_rows' launch keys (kernels.rowwise) and "stats":
"two_pass" (the default) or "one_pass" (normalized_rows' one_pass: the two row reductions
overlap).
"""

import functools

import jax
import jax.numpy as jnp

from pallasbench import task as tl
from pallasbench.kernels import rowwise
from pallasbench.kernels import mosaic_rows
from pallasbench.task import tuning
from pallasbench.task.families.rows import EPS, INPUTS, ORDER_DEPENDENT, STRESS, USES_TF32, bytes_moved, make_inputs

NAME = "fused_layer_norm_relu"
LEVEL = 2
CATEGORY = "norm_residual"
SHAPES = tl.sizes(medium={"x": (2048, 1024)})
TOLERANCE = tl.ELEMENTWISE

# x-p, sum, -mean, square, sum, scale, relu
FLOPS_PER_ELEMENT = 7


def reference(x):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean((x - mean) ** 2, axis=-1, keepdims=True)
    return jax.nn.relu((x - mean) / jnp.sqrt(var + EPS))


def _body(x_ref, o_ref, *, cols, one_pass):
    y = rowwise.normalized_rows(x_ref, cols=cols, eps=EPS, one_pass=one_pass)  # float32
    o_ref[...] = jnp.maximum(y, 0.0).astype(o_ref.dtype)


# Chosen on the H200 by bench/probe.py over bench/variants/rows.py
# (bench/results/2026-12-03-h200-tuning2/).
TUNED = tuning.Tuned(gpu="NVIDIA H200", source="bench/results/2026-12-03-h200-tuning2", configs={
    "medium": {"float32": {"min_programs": 1024, "num_warps": 4}},
})


@tuning.tuned_kernel(NAME, SHAPES, INPUTS, TUNED)
def kernel(x):
    stats = tuning.choice(NAME, "stats", "two_pass")
    if stats not in ("two_pass", "one_pass"):
        raise ValueError(f"{NAME}: stats {stats!r}")
    return rowwise.padded_rows(functools.partial(_body, one_pass=stats == "one_pass"), x, name=NAME)


# The Mosaic GPU implementation (plgpu.kernel, kernels/mosaic_rows.py): the preferred backend.
BACKENDS = {"mosaic_gpu": mosaic_rows.KERNELS[NAME], "triton": kernel}


def flops(shapes):
    rows, cols = shapes["x"]
    return FLOPS_PER_ELEMENT * rows * cols
