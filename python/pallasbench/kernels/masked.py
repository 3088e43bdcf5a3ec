"""Edges of arrays that blocks do not tile: masked loads and stores inside kernels, or padding.

Pallas's Triton lowering does not mask edge blocks: an overhanging block reads undefined memory
and writes past the array. A kernel whose blocks may overhang reads and writes through the masks
here; every helper skips its mask when the blocks tile the array exactly (a static check, so
the suite's power-of-two shapes trace no mask at all). The other way is zero padding outside
the kernel (pad_to_multiple).

Two vocabularies, by how a kernel locates its block:
- by element offsets (row0, col0) into a rows x cols array: edge_mask, load_tile, store_tile,
  load_rows, store_rows;
- by grid position along one axis: block_inside, load, store.
"""

import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton


def edge_mask(shape, row0, rows: int, col0, cols: int):
    """True where (row0 + i, col0 + j) lies inside a rows x cols array."""
    r = row0 + lax.broadcasted_iota(jnp.int32, shape, 0)
    c = col0 + lax.broadcasted_iota(jnp.int32, shape, 1)
    return (r < rows) & (c < cols)


def column_tile(ref, col0, width: int):
    """ref[:, col0:col0 + width] as a ref view (the whole ref when the width is its own)."""
    return ref if width == ref.shape[1] else ref.at[:, pl.ds(col0, width)]


def load_tile(ref, row0, rows: int, col0, cols: int, width: int, other):
    """ref[:, col0:col0 + width] of a rows x cols array, lanes outside it read as `other`.

    `other` is what the lanes must not change: -inf for a max or an exp, 0 for a sum.
    """
    tile = column_tile(ref, col0, width)
    if rows % ref.shape[0] == 0 and cols % width == 0:
        return tile[...]
    mask = edge_mask((ref.shape[0], width), row0, rows, col0, cols)
    return pltriton.load(tile, mask=mask, other=other)


def store_tile(ref, val, row0, rows: int, col0, cols: int):
    """Stores val at ref[:, col0:col0 + width], leaving lanes outside the array untouched."""
    br, width = val.shape
    tile = column_tile(ref, col0, width)
    if rows % br == 0 and cols % width == 0:
        tile[...] = val
    else:
        pltriton.store(tile, val, mask=edge_mask((br, width), row0, rows, col0, cols))


def load_rows(ref, row0, rows: int, other):
    """A (br,) block of per-row values, rows past the array read as `other`."""
    if rows % ref.shape[0] == 0:
        return ref[...]
    return pltriton.load(ref, mask=row0 + lax.iota(jnp.int32, ref.shape[0]) < rows, other=other)


def store_rows(ref, val, row0, rows: int):
    """Stores a (br,) block of per-row values, leaving rows past the array untouched."""
    if rows % ref.shape[0] == 0:
        ref[...] = val
    else:
        pltriton.store(ref, val, mask=row0 + lax.iota(jnp.int32, ref.shape[0]) < rows)


def block_inside(axis: int, block: int, extent: int):
    """Which of this program's `block` positions along grid axis `axis` fall inside `extent`;
    None when the grid tiles it exactly."""
    if extent % block == 0:
        return None
    return pl.program_id(axis) * block + lax.broadcasted_iota(jnp.int32, (block,), 0) < extent


def load(ref, mask, fill):
    """The block; `fill` where mask is False (past the array's edge), memory left untouched."""
    return ref[...] if mask is None else pltriton.load(ref, mask=mask, other=fill)


def store(ref, value, mask):
    """Writes the block except where mask is False (past the array's edge)."""
    if mask is None:
        ref[...] = value
    else:
        pltriton.store(ref, value, mask=mask)


def pad_to_multiple(x, axis: int, mult: int):
    """Zero-pad one axis up to a multiple of mult: layout only (zeros add nothing to a dot or a
    scatter of zero rows)."""
    extra = -x.shape[axis] % mult
    if not extra:
        return x
    widths = [(0, 0)] * x.ndim
    widths[axis] = (0, extra)
    return jnp.pad(x, widths)
