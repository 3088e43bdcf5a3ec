"""Row reductions: one value per row of a matrix, and f32 sums accurate to their final rounding.

- reduce_rows: one matrix reduced along its rows (sum, mean, max). One program owns `br` rows
  (rowwise.row_plan: the row rounded up to a power of two, 8K elements a block); a row wider
  than one tile is reduced tile by tile in a fori_loop.
- row_values: a function of whole rows of several inputs (the per-row losses), one block of
  whole rows per program.
Edges are masked (pallasbench.kernels.masked): the blocks may overhang the array.
Tunable under the task's `name` (pallasbench.task.tuning): reduce_rows reads rowwise.row_plan's
and row_params' keys; row_values reads "block_bytes" and "num_warps" over the caller's values.
Any float dtype: the hooks see float32 values (float inputs are loaded as float32), so sums
accumulate in float32; the result is stored at the first input's dtype.
"""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

from pallasbench import task as tl
from pallasbench.kernels import masked, rowwise
from pallasbench.task import tuning

# Heads live on a 2^-10 grid within +-2^12: their f32 sums are exact while |partial| < 2^14.
SUM_GRID = 1024.0
SUM_HEAD_RANGE = 4096.0
# Adding 1.5 * 2^13 puts |x| <= 2^12 in [2^12, 2^14), whose float32 spacing is 2^-10.
SUM_ROUNDER = 1.5 * 8192.0


def split_for_sum(x, form: str = "int"):
    """x = head + tail exactly, for sums that carry little more than their final rounding.

    A plain f32 tree sum of thousands of N(0,1) terms errs by ~1e-5, the size of the tolerance
    near zero. Heads sit on a 2^-10 grid, so summing them is exact (while |partial| < 2^14);
    tails are below 2^-10, so their rounding is negligible. Sum both, add at the end. The grid
    rounding is an int32 round trip: (x + c) - c would be folded back to x by XLA's CPU
    compiler in interpret mode.

    form "add": the head is rounded by (x + c) - c instead, c = SUM_ROUNDER: two float adds
    where the int32 round trip costs two conversions an element, at a quarter of the add rate
    on Hopper (16 a cycle per SM), about 4 us per 8M elements: hidden behind float32 loads,
    not behind 16-bit ones. On the GPU (no fast-math reassociation) the split is the same exact
    one; in interpret mode XLA folds it to head = x, tail = 0 (a plain sum), so the CPU tests
    cannot see it. form "floor": head = floor(x * 2^10) / 2^10, one rounding instruction (the
    same conversion rate) for the int32 round trip's two; tails lie in [0, 2^-10).
    """
    clipped = jnp.clip(x, -SUM_HEAD_RANGE, SUM_HEAD_RANGE)
    if form == "add":
        head = (clipped + SUM_ROUNDER) - SUM_ROUNDER
    elif form == "floor":
        head = jnp.floor(clipped * SUM_GRID) * (1.0 / SUM_GRID)
    else:
        scaled = clipped * SUM_GRID  # power of two: exact
        head = scaled.astype(jnp.int32).astype(jnp.float32) * (1.0 / SUM_GRID)
    return head, x - head


def reduce_rows(x, tile_value, combine, init, finish, *, other, name=None):
    """x (rows, cols) -> (rows,) in one pallas_call.

    tile_value(tile) -> value: the reduction of one (br, width) float32 column tile along axis
    1, whose lanes past the array read `other`; combine(acc, value) -> acc merges the tiles of a row
    wider than one tile, from init(br); finish(acc) -> (br,) is the result.
    """
    rows, cols = x.shape
    br, bc, width, tiles = rowwise.row_plan(x, name)
    body = functools.partial(_reduce_body, tile_value, combine, init, finish, rows=rows, cols=cols,
                             width=width, tiles=tiles, other=other)
    return pl.pallas_call(
        body,
        out_shape=jax.ShapeDtypeStruct((rows,), x.dtype),
        grid=(tl.cdiv(rows, br),),
        in_specs=[pl.BlockSpec((br, bc), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((br,), lambda i: (i,)),
        compiler_params=rowwise.row_params(br, width, name),
        name=name,
    )(x)


def _reduce_body(tile_value, combine, init, finish, x_ref, o_ref, *, rows, cols, width, tiles, other):
    block = rowwise.RowBlock(x_ref, o_ref, rows=rows, cols=cols, width=width, tiles=tiles, other=other)
    if tiles == 1:
        acc = tile_value(block.load(0))
    else:
        acc = block.fold(lambda tile, col0, acc: combine(acc, tile_value(tile)), init(block.br))
    masked.store_rows(o_ref, finish(acc).astype(o_ref.dtype), block.row0, rows)


def row_values(fn, *operands, others, block_bytes: int, num_warps: int, name=None):
    """fn(*blocks) -> (br,) over blocks of whole rows: (rows,) from operands whose first is
    (rows, cols).

    Each (rows, cols) operand gives fn its (br, bc) tile of whole rows, each (rows,) operand its
    (br,) block of per-row values, float blocks as float32; lanes past the array read that
    operand's entry of `others`. The result has the first operand's dtype.
    Rows per program fill block_bytes (tl.row_block).
    """
    x = operands[0]
    rows, cols = x.shape
    block_bytes = tuning.choice(name, "block_bytes", block_bytes)
    num_warps = tuning.choice(name, "num_warps", num_warps)
    br, bc = tl.row_block(rows, cols, x.dtype.itemsize, block_bytes)
    row_spec = pl.BlockSpec((br,), lambda i: (i,))
    return pl.pallas_call(
        functools.partial(_row_values_body, fn, rows=rows, cols=cols, others=tuple(others)),
        out_shape=jax.ShapeDtypeStruct((rows,), x.dtype),
        grid=(tl.cdiv(rows, br),),
        in_specs=[pl.BlockSpec((br, bc), lambda i: (i, 0)) if a.ndim == 2 else row_spec for a in operands],
        out_specs=row_spec,
        compiler_params=tl.triton_params(num_warps=num_warps, num_stages=1),
        name=name,
    )(*operands)


def _row_values_body(fn, *refs, rows, cols, others):
    *in_refs, o_ref = refs
    row0 = pl.program_id(0) * in_refs[0].shape[0]
    blocks = [masked.load_tile(r, row0, rows, 0, cols, r.shape[1], other) if len(r.shape) == 2
              else masked.load_rows(r, row0, rows, other)
              for r, other in zip(in_refs, others)]
    # Float math in float32 (integer operands, such as labels, keep their type).
    blocks = [b.astype(jnp.float32) if jnp.issubdtype(b.dtype, jnp.floating) else b for b in blocks]
    masked.store_rows(o_ref, fn(*blocks).astype(o_ref.dtype), row0, rows)
