"""layernorm_residual: (x - mean) / sqrt(var + 1e-5) + r over the last axis, no affine.

A rows-family task (pallasbench/task/families/rows.py: inputs, stress cases, byte model).
Memory-bound: x and r are each read once and the result written once. One program owns whole rows
(a power-of-two block, padded columns masked out of the variance), so mean, variance and the
residual add all happen in registers. Rows per program are capped to keep >= 256 programs.

Pivot-shifted sums (kernels.rowwise.normalized_rows): each row is summed as x - x[0], so an
offset of 1e3 leaves the mean exact to f32 rounding of O(1) values. Computed in float32 at
every dtype, rounded once on store.
"""

import jax.numpy as jnp

from pallasbench import task as tl
from pallasbench.kernels import rowwise
from pallasbench.kernels import mosaic_rows
from pallasbench.task.families.rows import EPS, ORDER_DEPENDENT, STRESS, USES_TF32, bytes_moved
from pallasbench.task.families.rows import RESIDUAL_INPUTS as INPUTS, make_residual_inputs as make_inputs

NAME = "layernorm_residual"
LEVEL = 2
CATEGORY = "norm_residual"
SHAPES = tl.sizes(medium={"x": (2048, 1024), "r": (2048, 1024)})
TOLERANCE = tl.ELEMENTWISE

# x-p, sum, -mean, square, sum, scale, + r
FLOPS_PER_ELEMENT = 7


def reference(x, r):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean((x - mean) ** 2, axis=-1, keepdims=True)
    return (x - mean) / jnp.sqrt(var + EPS) + r


def _body(x_ref, r_ref, o_ref, *, cols):
    out = rowwise.normalized_rows(x_ref, cols=cols, eps=EPS) + r_ref[...].astype(jnp.float32)
    o_ref[...] = out.astype(o_ref.dtype)


def kernel(x, r):
    return rowwise.padded_rows(_body, x, r, name=NAME)


# The Mosaic GPU implementation (plgpu.kernel, kernels/mosaic_rows.py): the preferred backend.
BACKENDS = {"mosaic_gpu": mosaic_rows.KERNELS[NAME], "triton": kernel}


def flops(shapes):
    rows, cols = shapes["x"]
    return FLOPS_PER_ELEMENT * rows * cols
