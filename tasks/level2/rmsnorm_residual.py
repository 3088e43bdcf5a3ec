"""rmsnorm_residual: x / sqrt(mean(x^2) + 1e-5) + r over the last axis.

A rows-family task (pallasbench/task/families/rows.py: inputs, stress cases, byte model).
Memory-bound: x and r are each read once and the result written once. One program owns whole rows
(a power-of-two block; padded columns are zeros and add nothing to the sum of squares), so the mean
square, scaling and residual add all happen in registers. Rows per program are capped to keep
>= 256 programs. Computed in float32 at every dtype, rounded once on store.
"""

import jax.numpy as jnp

from pallasbench import task as tl
from pallasbench.kernels import rowwise
from pallasbench.kernels import mosaic_rows
from pallasbench.task.families.rows import EPS, ORDER_DEPENDENT, STRESS, USES_TF32, bytes_moved
from pallasbench.task.families.rows import RESIDUAL_INPUTS as INPUTS, make_residual_inputs as make_inputs

NAME = "rmsnorm_residual"
LEVEL = 2
CATEGORY = "norm_residual"
SHAPES = tl.sizes(medium={"x": (2048, 1024), "r": (2048, 1024)})
TOLERANCE = tl.ELEMENTWISE

# square, sum, scale, + r
FLOPS_PER_ELEMENT = 4


def reference(x, r):
    return x / jnp.sqrt(jnp.mean(x * x, axis=-1, keepdims=True) + EPS) + r


def _body(x_ref, r_ref, o_ref, *, cols):
    x = x_ref[...].astype(jnp.float32)
    inv = 1.0 / jnp.sqrt(jnp.sum(x * x, axis=1) / cols + EPS)
    o_ref[...] = (x * inv[:, None] + r_ref[...].astype(jnp.float32)).astype(o_ref.dtype)


def kernel(x, r):
    return rowwise.padded_rows(_body, x, r, name=NAME)


# The Mosaic GPU implementation (plgpu.kernel, kernels/mosaic_rows.py): the preferred backend.
BACKENDS = {"mosaic_gpu": mosaic_rows.KERNELS[NAME], "triton": kernel}


def flops(shapes):
    rows, cols = shapes["x"]
    return FLOPS_PER_ELEMENT * rows * cols
