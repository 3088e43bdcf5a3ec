"""Index Mosaic GPU kernels (one_hot, embedding_lookup): one `plgpu.kernel` each, the Mosaic twins
of those task files' Triton kernels (plumbing in mosaic_stream).

- one_hot: write-bound. CTA (row block b, column part c) brings its `br` ids into SMEM (one TMA
  copy), holds them one a row (rows_layout reduced over its columns) and walks its column tiles:
  each (br, bc) tile is `ids == column` compared in registers and leaves through `out_slots` SMEM
  buffers and TMA stores (mosaic_stream.SlotStore). The only traffic is the ids read and the
  output write.
- embedding_lookup: data-dependent addressing by TMA. CTA (row group g, column tile c) copies the
  aligned block of ids holding its `rows` ids into SMEM, reads each id back as a scalar (clamped
  into the table, as jnp's gather clamps) and issues one TMA copy of table[id, c * bc:(c + 1) * bc]
  (a box of one row, its start the id) into row r of an SMEM block, all arriving on one barrier;
  the block then leaves in one TMA store. Hopper's TMA has no gather mode (tile::gather4 is
  Blackwell's): one copy a row it is. Exact: the values are moved, never computed.

1D copies move multiples of 128 bytes (mosaic_stream.COPY_QUANTUM): ids come in blocks of 32.

Tunable under the task's `name` (pallasbench.task.tuning): one_hot "mosaic_rows" (ids a CTA),
"mosaic_tile_cols", "mosaic_ctas" (CTAs wanted: the column parts follow), "mosaic_out_slots";
embedding_lookup "mosaic_rows" (ids a CTA), "mosaic_tile_cols".
"""

from __future__ import annotations

import functools

import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from pallasbench.kernels import mosaic_stream as ms
from pallasbench.task import tuning

ID_BLOCK = ms.COPY_QUANTUM // 4  # int32 ids of one 128-byte copy
ONE_HOT_CLASSES = 1024  # one_hot's NUM_CLASSES (its task file)


def _largest_divisor(n: int, at_most: int, multiple_of: int = 1) -> int:
    return max(d for d in range(multiple_of, max(multiple_of, min(n, at_most)) + 1, multiple_of)
               if n % d == 0)


def _check_ids(name, ids):
    if ids.ndim != 1 or ids.dtype != jnp.int32:
        ms.refuse(name, f"ids {ids.shape} {ids.dtype}: int32 ids of one dimension are needed")
    if ids.shape[0] % ID_BLOCK:
        ms.refuse(name, f"{ids.shape[0]} ids: a multiple of {ID_BLOCK} (128-byte copies) is needed")


# ---- one_hot ------------------------------------------------------------------------------

def one_hot(ids, num_classes: int, *, name="one_hot", interpret=ms.AUTO):
    """(ids[:, None] == arange(num_classes)) as float32 (N, num_classes)."""
    _check_ids(name, ids)
    n = ids.shape[0]
    br = tuning.choice(name, "mosaic_rows", ID_BLOCK)
    bc = tuning.choice(name, "mosaic_tile_cols", min(32 * ms.VEC, num_classes))  # 128 CTAs at MEDIUM
    slots = tuning.choice(name, "mosaic_out_slots", 2)
    if br % ID_BLOCK or n % br or br > ms.MAX_BOX or num_classes % bc or bc % (32 * ms.VEC) or bc > ms.MAX_BOX:
        ms.refuse(name, f"{n} ids of {num_classes} classes in ({br}, {bc}) tiles: rows a multiple of "
                        f"{ID_BLOCK} dividing the ids, columns a multiple of {32 * ms.VEC} dividing the classes")
    blocks, tiles = n // br, num_classes // bc
    smem = slots * br * bc * 4 + br * 4
    want = tuning.choice(name, "mosaic_ctas", ms.max_ctas(smem))
    parts = _largest_divisor(tiles, max(1, want // blocks))  # column parts a row block is cut in
    gpu = ms.plgpu()
    interpret = ms.interpret_for(interpret)
    scratch = [gpu.SMEM((br,), jnp.int32), gpu.SMEM((slots, br, bc), jnp.float32),
               gpu.Barrier(num_arrivals=1, num_barriers=1)]
    body = functools.partial(_one_hot_kernel, parts=parts, steps=tiles // parts, slots=slots,
                             interpreting=interpret is not None)
    return ms.launch(body, [ids], ms.struct((n, num_classes), jnp.float32), ctas=blocks * parts,
                     scratch=scratch, name=name, interpret=interpret)


def _one_hot_kernel(ids_gmem, out_gmem, ids_smem, out_smem, barrier, *, parts, steps, slots, interpreting):
    gpu = ms.plgpu()
    _, br, bc = out_smem.shape
    lay = ms.Layouts(ms.rows_layout(), interpreting)
    cta = lax.axis_index("cta")
    block, part = lax.div(cta, jnp.int32(parts)), lax.rem(cta, jnp.int32(parts))
    rows = pl.ds(block * br, br)
    gpu.copy_gmem_to_smem(ids_gmem.at[rows], ids_smem, barrier.at[0])
    gpu.barrier_wait(barrier.at[0])
    ids = lay.spread(lay.load_reduced(ids_smem, 1), (br, bc), 1)
    column = lay.iota((br, bc), 1)
    store = ms.SlotStore(out_smem, slots)

    @pl.loop(0, steps)
    def _(s):
        col0 = (part * steps + s) * bc
        tile = (ids == column + col0).astype(jnp.float32)
        store.put(s, tile, out_gmem.at[rows, pl.ds(col0, bc)])

    gpu.wait_smem_to_gmem(0)


# ---- embedding_lookup ---------------------------------------------------------------------

def embedding_lookup(table, ids, *, name="embedding_lookup", interpret=ms.AUTO):
    """table[ids]: (N, D) rows of the (V, D) table, ids clamped into [0, V)."""
    _check_ids(name, ids)
    vocab, dim = table.shape
    n = ids.shape[0]
    rows = tuning.choice(name, "mosaic_rows", 8)
    bc = tuning.choice(name, "mosaic_tile_cols", _largest_divisor(dim, ms.MAX_BOX, 16 // table.dtype.itemsize))
    if ID_BLOCK % rows or dim % bc or bc > ms.MAX_BOX or bc * table.dtype.itemsize % 16:
        ms.refuse(name, f"table {table.shape}, {rows} ids a CTA, {bc} columns a copy: the ids a CTA "
                        f"must divide {ID_BLOCK}, the columns divide D, at most {ms.MAX_BOX}, 16-byte rows")
    tiles = dim // bc
    gpu = ms.plgpu()
    interpret = ms.interpret_for(interpret)
    scratch = [gpu.SMEM((ID_BLOCK,), jnp.int32), gpu.SMEM((rows, bc), table.dtype),
               gpu.Barrier(num_arrivals=1, num_barriers=1), gpu.Barrier(num_arrivals=rows, num_barriers=1)]
    body = functools.partial(_embedding_kernel, tiles=tiles, vocab=vocab)
    return ms.launch(body, [table, ids], ms.struct((n, dim), table.dtype), ctas=n // rows * tiles,
                     scratch=scratch, name=name, interpret=interpret)


def _embedding_kernel(table, ids_gmem, out_gmem, ids_smem, rows_smem, ids_barrier, rows_barrier, *,
                      tiles, vocab):
    gpu = ms.plgpu()
    rows, bc = rows_smem.shape
    cta = lax.axis_index("cta")
    group, tile = lax.div(cta, jnp.int32(tiles)), lax.rem(cta, jnp.int32(tiles))
    first = group * rows  # the CTA's first id
    block = lax.div(first, jnp.int32(ID_BLOCK)) * ID_BLOCK  # the 128-byte block holding its ids
    cols = pl.ds(tile * bc, bc)
    gpu.copy_gmem_to_smem(ids_gmem.at[pl.ds(block, ID_BLOCK)], ids_smem, ids_barrier.at[0])
    gpu.barrier_wait(ids_barrier.at[0])
    for r in range(rows):  # static: `rows` copies in flight at once
        row_id = jnp.clip(ids_smem[first - block + r], 0, vocab - 1)
        gpu.copy_gmem_to_smem(table.at[pl.ds(row_id, 1), cols], rows_smem.at[pl.ds(r, 1)], rows_barrier.at[0])
    gpu.barrier_wait(rows_barrier.at[0])
    gpu.commit_smem()
    gpu.copy_smem_to_gmem(rows_smem, out_gmem.at[pl.ds(first, rows), cols])
    gpu.wait_smem_to_gmem(0)


KERNELS = {
    "one_hot": lambda ids, interpret=ms.AUTO: one_hot(ids, ONE_HOT_CLASSES, interpret=interpret),
    "embedding_lookup": lambda table, ids, interpret=ms.AUTO: embedding_lookup(table, ids, interpret=interpret),
}
