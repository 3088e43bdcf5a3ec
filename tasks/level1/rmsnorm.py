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
from jax.experimental.pallas import triton as pltriton

from pallasbench import tasklib as tl

NAME = "rmsnorm"
LEVEL = 1
CATEGORY = "normalization"
INPUTS = (tl.Input("x", tl.REAL),)
SHAPES = tl.sizes(medium={"x": (2048, 1024)})
TOLERANCE = tl.ELEMENTWISE
USES_TF32 = False
ORDER_DEPENDENT = False

EPS = 1e-5
# Widest row tile one program holds in registers: the shared block budget (8K float32).
TILE = tl.DEFAULT_BLOCK_BYTES // 4


def make_inputs(rng, shapes):
    return (tl.normal(rng, shapes["x"]),)


def reference(x):
    return x / jnp.sqrt(jnp.mean(jnp.square(x), axis=-1, keepdims=True) + EPS)


def _tile_mask(shape, row0, rows, col0, cols):
    r = row0 + lax.broadcasted_iota(jnp.int32, shape, 0)
    c = col0 + lax.broadcasted_iota(jnp.int32, shape, 1)
    return (r < rows) & (c < cols)


def _tile(ref, col0, width):
    return ref if width == ref.shape[1] else ref.at[:, pl.ds(col0, width)]


def _exact(ref, rows, cols, width):
    """Whether every tile lies inside the array (no mask needed)."""
    return rows % ref.shape[0] == 0 and cols % width == 0


def _load_tile(ref, row0, rows, col0, cols, width):
    """ref[:, col0:col0+width]; lanes outside the rows x cols array read as 0.

    Edge blocks of a Triton kernel would read undefined memory: the mask keeps that memory
    untouched and out of the sums.
    """
    tile = _tile(ref, col0, width)
    if _exact(ref, rows, cols, width):
        return tile[...]
    mask = _tile_mask((ref.shape[0], width), row0, rows, col0, cols)
    return pltriton.load(tile, mask=mask, other=0.0)


def _store_tile(ref, val, row0, rows, col0, cols):
    br, width = val.shape
    tile = _tile(ref, col0, width)
    if _exact(ref, rows, cols, width):
        tile[...] = val
    else:
        pltriton.store(tile, val, mask=_tile_mask((br, width), row0, rows, col0, cols))


def _rmsnorm_rows(x_ref, o_ref, *, rows, cols):
    """Whole rows in registers: one read, one write."""
    br, bc = x_ref.shape
    row0 = pl.program_id(0) * br
    x = _load_tile(x_ref, row0, rows, 0, cols, bc)
    ms = jnp.sum(x * x, axis=1, keepdims=True) / cols
    _store_tile(o_ref, x * lax.rsqrt(ms + EPS), row0, rows, 0, cols)


def _rmsnorm_tiled(x_ref, o_ref, *, rows, cols, width, tiles):
    """Rows wider than a tile: sum of squares over column tiles, then a write pass."""
    br = x_ref.shape[0]
    row0 = pl.program_id(0) * br

    def sum_sq(t, acc):
        x = _load_tile(x_ref, row0, rows, t * width, cols, width)
        return acc + jnp.sum(x * x, axis=1, keepdims=True)

    ss = lax.fori_loop(0, tiles, sum_sq, jnp.zeros((br, 1), jnp.float32))
    scale = lax.rsqrt(ss / cols + EPS)

    def write(t, carry):
        x = _load_tile(x_ref, row0, rows, t * width, cols, width)
        _store_tile(o_ref, x * scale, row0, rows, t * width, cols)
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
