"""Row kernels: each program owns whole rows, for softmax-class ops, the norms and their fusions.

Two families:

- map_rows (masked edges): one program owns `br` rows (tl.row_block: the row rounded up to a
  power of two, rows filling the 8K-element budget). A row that fits one tile of TILE elements
  stays in registers: the task's `whole` hook maps the loaded rows to the output, one read and
  one write. A wider row streams column tiles twice through a RowBlock: the task's `tiled` hook
  folds statistics over the tiles, then writes each tile. Lanes past the array read `other`
  (-inf where they must not win a max, 0 where they must not add to a sum) and are never stored.
- padded_rows (padded edges): whole rows in one block, operands zero-padded to whole blocks
  outside the kernel, rows per program capped to keep >= MIN_PROGRAMS programs; the task's
  body masks the padded columns out of its statistics (normalized_rows for the layernorms).

Tunable (pallasbench.task.tuning, under the task's `name`; the defaults are the rules above):
map_rows and reductions.reduce_rows read "block_bytes" (rows per program), "tile" (widest row
held in registers; wider rows take the tiled passes), "num_warps", "num_stages"; padded_rows
reads "block_bytes", "min_programs", "num_warps". At bfloat16 the 32 KB budget holds twice the
rows, halving the programs (MEDIUM norms: 128, under one per H200 SM): the search probes that.

Any float dtype: rows are computed in float32 (RowBlock loads them as float32 and stores the
output's dtype; padded_rows bodies cast their loads and store o_ref.dtype), so sums, maxima and
exp-sums of bfloat16 or float16 rows carry float32 rounding; float32 rows pass unchanged.
"""

import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from pallasbench import task as tl
from pallasbench.kernels import masked
from pallasbench.task import tuning

# Widest row tile one program holds in registers: the shared block budget (8K float32).
TILE = tl.DEFAULT_BLOCK_BYTES // 4
# Programs padded_rows keeps in flight: about two per H200 SM (132), so every SM streams rows.
MIN_PROGRAMS = 256


def row_plan(x, name=None):
    """(br, bc, width, tiles): rows per program, the padded row, its column tile, tiles per row."""
    rows, cols = x.shape
    br, bc = tl.row_block(rows, cols, x.dtype.itemsize,
                          tuning.choice(name, "block_bytes", tl.DEFAULT_BLOCK_BYTES))
    width = min(bc, tuning.choice(name, "tile", TILE))
    return br, bc, width, tl.cdiv(cols, width)


def row_params(br: int, width: int, name=None):
    """8 warps for an 8K-element tile: 32 values (8 vector loads) in flight per thread."""
    return tl.triton_params(num_warps=tuning.choice(name, "num_warps", 8 if br * width >= TILE else 4),
                            num_stages=tuning.choice(name, "num_stages", 1))


class RowBlock:
    """The `br` rows of a rows x cols array one program owns, read and written in column tiles
    of `width` through masks (lanes past the array read `other` unless told otherwise). Tiles
    are loaded as float32 and stored as the output's dtype."""

    def __init__(self, x_ref, o_ref, *, rows: int, cols: int, width: int, tiles: int, other):
        self.x_ref, self.o_ref = x_ref, o_ref
        self.rows, self.cols, self.width, self.tiles, self.other = rows, cols, width, tiles, other
        self.br = x_ref.shape[0]
        self.row0 = pl.program_id(0) * self.br

    def load(self, col0, width: int | None = None, other=None):
        """The (br, width) tile at column col0, as float32."""
        tile = masked.load_tile(self.x_ref, self.row0, self.rows, col0, self.cols,
                                self.width if width is None else width,
                                self.other if other is None else other)
        return tile.astype(jnp.float32)

    def store(self, val, col0):
        val = val.astype(self.o_ref.dtype)
        masked.store_tile(self.o_ref, val, self.row0, self.rows, col0, self.cols)

    def fold(self, step, init):
        """step(x, col0, carry) -> carry over every column tile x, in order, from init."""

        def body(t, carry):
            col0 = t * self.width
            return step(self.load(col0), col0, carry)

        return lax.fori_loop(0, self.tiles, body, init)

    def write(self, fn):
        """Stores fn(x) over every column tile x, in order."""

        def body(t, carry):
            col0 = t * self.width
            self.store(fn(self.load(col0)), col0)
            return carry

        lax.fori_loop(0, self.tiles, body, 0)


def online_max_sum(block: RowBlock):
    """Per row (br, 1): the max m and sum(exp(x - m)) over all tiles in one pass, the sum rescaled
    whenever the running max grows (masked lanes must read -inf)."""

    def step(x, col0, carry):
        m, s = carry
        m_new = jnp.maximum(m, jnp.max(x, axis=1, keepdims=True))
        s = s * jnp.exp(m - m_new) + jnp.sum(jnp.exp(x - m_new), axis=1, keepdims=True)
        return m_new, s

    return block.fold(step, (jnp.full((block.br, 1), -jnp.inf, jnp.float32),
                             jnp.zeros((block.br, 1), jnp.float32)))


def softmax2_whole(s, block):
    """map_rows' `whole` hook of a row softmax of base-2 scores: exp2(s - max) / sum (qk_softmax's
    mosaic mode, whose matmul writes the scores pre-scaled by log2(e)/sqrt(d))."""
    e = jnp.exp2(s - jnp.max(s, axis=1, keepdims=True))
    return e * (1.0 / jnp.sum(e, axis=1, keepdims=True))


def softmax2_tiled(block: RowBlock):
    """map_rows' `tiled` hook of softmax2_whole: the base-2 max and exp-sum folded over the
    column tiles, then the write (masked lanes must read -inf)."""
    def step(s, col0, carry):
        m, total = carry
        m_new = jnp.maximum(m, jnp.max(s, axis=1, keepdims=True))
        return m_new, total * jnp.exp2(m - m_new) + jnp.sum(jnp.exp2(s - m_new), axis=1, keepdims=True)

    m, total = block.fold(step, (jnp.full((block.br, 1), -jnp.inf, jnp.float32),
                                 jnp.zeros((block.br, 1), jnp.float32)))
    inv = 1.0 / total
    block.write(lambda s: jnp.exp2(s - m) * inv)


def map_rows(x, whole, tiled, *, other, out_dtype=None, name=None):
    """x (rows, cols) -> an array of its shape, computed row by row in one pallas_call.

    whole(x, block) -> out: x the (br, bc) float32 tile of whole rows, when a row fits TILE
    elements. tiled(block): otherwise; folds over block's (float32) column tiles, then
    block.write(fn). The output has x's dtype unless out_dtype is given.
    """
    rows, cols = x.shape
    br, bc, width, tiles = row_plan(x, name)
    if width == bc:
        body = functools.partial(_whole_rows, whole, rows=rows, cols=cols, other=other)
    else:
        body = functools.partial(_tiled_rows, tiled, rows=rows, cols=cols, width=width,
                                 tiles=tiles, other=other)
    spec = pl.BlockSpec((br, bc), lambda i: (i, 0))
    return pl.pallas_call(
        body,
        out_shape=jax.ShapeDtypeStruct(x.shape, out_dtype or x.dtype),
        grid=(tl.cdiv(rows, br),),
        in_specs=[spec],
        out_specs=spec,
        compiler_params=row_params(br, width, name),
        name=name,
    )(x)


def _whole_rows(whole, x_ref, o_ref, *, rows, cols, other):
    """Whole rows in registers: one read, one write."""
    block = RowBlock(x_ref, o_ref, rows=rows, cols=cols, width=x_ref.shape[1], tiles=1, other=other)
    block.store(whole(block.load(0), block), 0)


def _tiled_rows(tiled, x_ref, o_ref, *, rows, cols, width, tiles, other):
    """Rows wider than a tile: the task's passes over column tiles."""
    tiled(RowBlock(x_ref, o_ref, rows=rows, cols=cols, width=width, tiles=tiles, other=other))


def padded_rows(body, *operands, per_row: bool = False, name=None):
    """body(*in_refs, o_ref, cols=cols) over blocks of whole rows of (rows, cols) operands.

    Every operand is zero-padded to whole (br, bc) blocks, bc the row rounded up to a power of
    two (the GPU does not mask edge stores); the body sees the true width `cols`. The result is
    (rows, cols) like the first operand, or (rows,) with per_row, of its dtype: the body loads
    float32 (`ref[...].astype(jnp.float32)`) and stores `.astype(o_ref.dtype)`.
    """
    x = operands[0]
    rows, cols = x.shape
    br, bc = tl.row_block(rows, cols, x.dtype.itemsize,
                          tuning.choice(name, "block_bytes", tl.DEFAULT_BLOCK_BYTES))
    br = max(1, min(br, tl.prev_pow2(rows // tuning.choice(name, "min_programs", MIN_PROGRAMS))))
    prows = tl.cdiv(rows, br) * br
    if (prows, bc) != (rows, cols):
        operands = [jnp.pad(a, ((0, prows - rows), (0, bc - cols))) for a in operands]
    tile = pl.BlockSpec((br, bc), lambda i: (i, 0))
    out = pl.pallas_call(
        functools.partial(body, cols=cols),
        out_shape=jax.ShapeDtypeStruct((prows,) if per_row else (prows, bc), x.dtype),
        grid=(prows // br,),
        in_specs=[tile] * len(operands),
        out_specs=pl.BlockSpec((br,), lambda i: (i,)) if per_row else tile,
        # >= 32 values per thread per input: wide loads, the row reductions stay in registers.
        compiler_params=tl.triton_params(
            num_warps=tuning.choice(name, "num_warps", min(8, max(1, br * bc // 1024))), num_stages=1),
        name=name,
    )(*operands)
    return out[:rows] if per_row else out[:rows, :cols]


def normalized_rows(x_ref, *, cols: int, eps: float, one_pass: bool = False):
    """(x - mean) / sqrt(var + eps) per row of a padded_rows block, zero in padded columns.

    Pivot-shifted sums: each row is summed as s = x - p, p its first element (exact near it,
    Sterbenz), and written as (s - mean(s)) * rstd. An offset of 1e3 then leaves the mean exact
    to f32 rounding of O(1) values; a plain f32 sum of ~1e3 values would carry ~1e-4 into every
    output. Computed in float32 whatever the ref's dtype.

    one_pass: sum(s) and sum(s^2) reduced together (independent cross-warp reductions),
    var = E[s^2] - mean(s)^2; the pivot keeps mean(s)^2 within a few var, so the cancellation
    costs a few bits of float32.
    """
    x = x_ref[...].astype(jnp.float32)
    s = x - x_ref[:, :1].astype(jnp.float32)
    if x.shape[1] != cols:  # padded columns are zeros: 0 - p must stay out of the sums
        inside = lax.broadcasted_iota(jnp.int32, x.shape, 1) < cols
        s = jnp.where(inside, s, 0.0)
    mean = jnp.sum(s, axis=1) / cols
    d = s - mean[:, None]
    if x.shape[1] != cols:  # padded columns would add mean^2 each to the variance
        d = jnp.where(inside, d, 0.0)
    if one_pass:  # padded columns of s are zeros: they add nothing to sum(s^2)
        var = jnp.maximum(jnp.sum(s * s, axis=1) / cols - mean * mean, 0.0)
    else:
        var = jnp.sum(d * d, axis=1) / cols
    inv = 1.0 / jnp.sqrt(var + eps)
    return d * inv[:, None]
