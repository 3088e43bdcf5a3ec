"""(bench copy: tasks/level1/layernorm.py before its sums were shifted by a pivot, 2026-12-01, for
an A/B timing against the current kernel in one executor.)

layernorm: (x - mean) / sqrt(var + 1e-5) over the last axis, no affine.

Memory-bound: one read and one write per element. One program owns `br` whole rows
(tl.row_block: 8K elements, the row padded to a power of two) held in registers: mean, then
the variance of the centred row (two-pass, as the reference), then the scaled write, all from
one read of x. Rows wider than 8K elements stream column tiles twice (per-tile mean/M2 merged
with Chan's formula, then the write). No dot, no TF32.
"""

import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from pallasbench import task as tl

from pallasbench.kernels import masked

NAME = "layernorm"
LEVEL = 1
CATEGORY = "normalization"
INPUTS = (tl.Input("x", tl.REAL),)
SHAPES = tl.sizes(medium={"x": (2048, 1024)}, small={"x": (256, 256)},
                  large={"x": (8192, 4096)})
TOLERANCE = tl.ELEMENTWISE
USES_TF32 = False
ORDER_DEPENDENT = False

EPS = 1e-5
# Widest row tile one program holds in registers: the shared block budget (8K float32).
TILE = tl.DEFAULT_BLOCK_BYTES // 4


def make_inputs(rng, shapes):
    return (tl.normal(rng, shapes["x"]),)


def reference(x):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
    return (x - mean) / jnp.sqrt(var + EPS)


def _centred(x, mean, col0, cols):
    """x - mean with padding lanes zeroed, so they stay out of the variance."""
    d = x - mean
    if cols % x.shape[1] == 0:
        return d
    c = col0 + lax.broadcasted_iota(jnp.int32, x.shape, 1)
    return jnp.where(c < cols, d, 0.0)


def _layernorm_rows(x_ref, o_ref, *, rows, cols):
    """Whole rows in registers: one read, one write."""
    br, bc = x_ref.shape
    row0 = pl.program_id(0) * br
    x = masked.load_tile(x_ref, row0, rows, 0, cols, bc, other=0.0)
    mean = jnp.sum(x, axis=1, keepdims=True) / cols
    d = _centred(x, mean, 0, cols)
    var = jnp.sum(d * d, axis=1, keepdims=True) / cols
    masked.store_tile(o_ref, d * lax.rsqrt(var + EPS), row0, rows, 0, cols)


def _layernorm_tiled(x_ref, o_ref, *, rows, cols, width, tiles):
    """Rows wider than a tile: per-tile (mean, M2) merged across tiles, then a write pass."""
    br = x_ref.shape[0]
    row0 = pl.program_id(0) * br

    def stats(t, carry):
        n_a, mean_a, m2_a = carry
        x = masked.load_tile(x_ref, row0, rows, t * width, cols, width, other=0.0)
        n_b = jnp.minimum(width, cols - t * width).astype(jnp.float32)  # >= 1 by construction
        mean_b = jnp.sum(x, axis=1, keepdims=True) / n_b
        d = _centred(x, mean_b, t * width, cols)
        m2_b = jnp.sum(d * d, axis=1, keepdims=True)
        # Chan et al.: merging centred moments keeps the variance free of cancellation.
        n = n_a + n_b
        w = n_b / n
        delta = mean_b - mean_a
        return n, mean_a + delta * w, m2_a + m2_b + delta * delta * (n_a * w)

    zeros = jnp.zeros((br, 1), jnp.float32)
    _, mean, m2 = lax.fori_loop(0, tiles, stats, (jnp.float32(0.0), zeros, zeros))
    rstd = lax.rsqrt(m2 / cols + EPS)

    def write(t, carry):
        x = masked.load_tile(x_ref, row0, rows, t * width, cols, width, other=0.0)
        masked.store_tile(o_ref, (x - mean) * rstd, row0, rows, t * width, cols)
        return carry

    lax.fori_loop(0, tiles, write, 0)


def kernel(x):
    rows, cols = x.shape
    br, bc = tl.row_block(rows, cols, x.dtype.itemsize)
    width = min(bc, TILE)
    if width == bc:
        body = functools.partial(_layernorm_rows, rows=rows, cols=cols)
    else:
        body = functools.partial(_layernorm_tiled, rows=rows, cols=cols, width=width,
                                 tiles=tl.cdiv(cols, width))
    spec = pl.BlockSpec((br, bc), lambda i: (i, 0))
    return pl.pallas_call(
        body,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(tl.cdiv(rows, br),),
        in_specs=[spec],
        out_specs=spec,
        # 8 warps for an 8K-element tile: 32 values (8 vector loads) in flight per thread.
        compiler_params=tl.triton_params(num_warps=8 if br * width >= TILE else 4,
                                         num_stages=1),
    )(x)


def flops(shapes):
    rows, cols = shapes["x"]
    return 5 * rows * cols + 2 * rows  # sum, centre, square-accumulate (2), scale; rsqrt/row


def bytes_moved(shapes):
    rows, cols = shapes["x"]
    return 2 * rows * cols * 4
