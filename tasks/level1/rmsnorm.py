"""rmsnorm: x / sqrt(mean(x^2) + 1e-5) over the last axis, no affine.

Memory-bound: one read and one write per element. One program owns `br` whole rows
(tl.row_block: 8K elements, the row padded to a power of two) held in registers: the tree sum
of squares and the scaled write come from one read of x. Rows wider than 8K elements stream
column tiles twice (sum of squares, then the write). Masked lanes read as 0. No dot, no TF32.
"""

import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from pallasbench import tasklib as tl

NAME = "rmsnorm"
LEVEL = 1
CATEGORY = "normalization"
INPUTS = (tl.Input("x", tl.REAL),)
SHAPES = tl.sizes(medium={"x": (2048, 1024)})
TOLERANCE = tl.ELEMENTWISE
USES_TF32 = False
ORDER_DEPENDENT = False
STRESS = tl.stress("tiny", "large", "offset", offset_input="x",
                   degenerate=tl.NO_DISCRETE_INPUT, distinct=tl.NO_DISCRETE_INPUT)

EPS = 1e-5
# Widest row tile one program holds in registers: the shared block budget (8K float32).
TILE = tl.DEFAULT_BLOCK_BYTES // 4


def make_inputs(rng, shapes):
    return (tl.normal(rng, shapes["x"]),)


def reference(x):
    return x / jnp.sqrt(jnp.mean(jnp.square(x), axis=-1, keepdims=True) + EPS)


def _rmsnorm_rows(x_ref, o_ref, *, rows, cols):
    """Whole rows in registers: one read, one write."""
    br, bc = x_ref.shape
    row0 = pl.program_id(0) * br
    x = tl.load_tile(x_ref, row0, rows, 0, cols, bc, other=0.0)
    ms = jnp.sum(x * x, axis=1, keepdims=True) / cols
    tl.store_tile(o_ref, x * lax.rsqrt(ms + EPS), row0, rows, 0, cols)


def _rmsnorm_tiled(x_ref, o_ref, *, rows, cols, width, tiles):
    """Rows wider than a tile: sum of squares over column tiles, then a write pass."""
    br = x_ref.shape[0]
    row0 = pl.program_id(0) * br

    def sum_sq(t, acc):
        x = tl.load_tile(x_ref, row0, rows, t * width, cols, width, other=0.0)
        return acc + jnp.sum(x * x, axis=1, keepdims=True)

    ss = lax.fori_loop(0, tiles, sum_sq, jnp.zeros((br, 1), jnp.float32))
    scale = lax.rsqrt(ss / cols + EPS)

    def write(t, carry):
        x = tl.load_tile(x_ref, row0, rows, t * width, cols, width, other=0.0)
        tl.store_tile(o_ref, x * scale, row0, rows, t * width, cols)
        return carry

    lax.fori_loop(0, tiles, write, 0)


def kernel(x):
    rows, cols = x.shape
    br, bc = tl.row_block(rows, cols, x.dtype.itemsize)
    width = min(bc, TILE)
    if width == bc:
        body = functools.partial(_rmsnorm_rows, rows=rows, cols=cols)
    else:
        body = functools.partial(_rmsnorm_tiled, rows=rows, cols=cols, width=width,
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
    return 3 * rows * cols + 2 * rows  # square-accumulate (2), scale; rsqrt per row


def bytes_moved(shapes):
    rows, cols = shapes["x"]
    return 2 * rows * cols * 4
