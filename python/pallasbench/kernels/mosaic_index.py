"""Index Mosaic GPU kernels (one_hot, embedding_lookup, gather; scatter_add's are mosaic_scatter's):
one `plgpu.kernel` each, the Mosaic twins of those task files' Triton kernels (plumbing in
mosaic_stream).

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
- gather (take_along_axis on axis 1; GPU only): CTA c walks its blocks of `br` rows through a
  TMA ring (plgpu.emit_pipeline over x's (br, C) and idx's (br, J) blocks, as (br, C / bc, bc)
  boxes); each thread loads its own outputs from the x block at the addresses its indices give
  (inline Mosaic GPU: Pallas has no array-indexed load) and the (br, J) block leaves by TMA.
  x is read whole (C / J times the gathered bytes), in full TMA boxes rather than 4-byte
  scattered loads.

1D copies move multiples of 128 bytes (mosaic_stream.COPY_QUANTUM): ids come in blocks of 32.

Tunable under the task's `name` (pallasbench.task.tuning): one_hot "mosaic_rows" (ids a CTA),
"mosaic_tile_cols", "mosaic_ctas" (CTAs wanted: the column parts follow), "mosaic_out_slots";
embedding_lookup "mosaic_rows" (ids a CTA), "mosaic_tile_cols"; gather "mosaic_rows" (rows a
block), "mosaic_stages".
"""

from __future__ import annotations

import functools

import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.experimental import pallas as pl

from pallasbench.kernels import mosaic_stream as ms
from pallasbench.task import tuning

ID_BLOCK = ms.COPY_QUANTUM // 4  # int32 ids of one 128-byte copy
ONE_HOT_CLASSES = 1024  # one_hot's NUM_CLASSES (its task file)
GATHER_BLOCK_BYTES = 32 * 1024  # x's block of rows in SMEM (one ring slot)


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


# ---- gather (take_along_axis on axis 1) ---------------------------------------------------

def gather(x, idx, *, name="gather", interpret=ms.AUTO):
    """take_along_axis(x, idx, axis=1): out[r, j] = x[r, idx[r, j]], indices clamped into [0, C).
    GPU only: the per-thread SMEM gather is inline Mosaic GPU (see _smem_gather)."""
    rows, cols = x.shape
    if idx.ndim != 2 or idx.shape[0] != rows or idx.dtype != jnp.int32:
        ms.refuse(name, f"x {x.shape} and idx {idx.shape} {idx.dtype}: int32 (rows, J) indices are needed")
    j = idx.shape[1]
    bc, bj = min(cols, ms.MAX_BOX), min(j, ms.MAX_BOX)
    # Rows a block: x's block about 32 KiB (the gathers' source), at least one layout's worth of
    # indices (128 threads x vec).
    br = tuning.choice(name, "mosaic_rows", max(1, min(ms.MAX_BOX, GATHER_BLOCK_BYTES // (cols * x.dtype.itemsize))))
    vec = 4 if bj % 4 == 0 and br * j % (4 * 128) == 0 else 1
    stages, slots = tuning.choice(name, "mosaic_stages", 2), 2
    if cols % bc or j % bj or rows % br or br * j % (vec * 128) or bj * 4 % 16 or bc * x.dtype.itemsize % 16:
        ms.refuse(name, f"x {x.shape}, idx {idx.shape}, {br} rows a block: rows a multiple of the block, C and J "
                        f"multiples of {ms.MAX_BOX} past it, {128 * vec} indices a block at least")
    block_bytes = br * (cols * x.dtype.itemsize + j * 4)
    smem = stages * block_bytes + slots * br * j * x.dtype.itemsize
    ms.check_smem(name, smem, f"{stages} stages of {br} rows")
    ctas, steps = ms.split_units(rows // br, ms.max_ctas(smem))
    gpu = ms.plgpu()
    out_block = (br, j // bj, bj)
    body = functools.partial(_gather_kernel, steps=steps, vec=vec, stages=stages)
    # (rows, n) -> (rows, n / b, b): free reshapes, so a TMA box holds whole rows.
    views = [x.reshape(rows, cols // bc, bc), idx.reshape(rows, j // bj, bj)]
    out = ms.launch(body, views, ms.struct((rows, *out_block[1:]), x.dtype), ctas=ctas,
                    scratch=[gpu.SMEM((slots, *out_block), x.dtype)], name=name, interpret=ms.interpret_for(interpret))
    return out.reshape(rows, j)


def _gather_kernel(x_gmem, idx_gmem, out_gmem, out_smem, *, steps, vec, stages):
    gpu = ms.plgpu()
    slots, br, nj, bj = out_smem.shape
    layout = gpu.Layout.WG_STRIDED((br, nj, bj), vec)
    cta = lax.axis_index("cta")
    store = ms.SlotStore(out_smem, slots)

    def step(indices, x_block, idx_block):
        (s,) = indices
        ids = gpu.layout_cast(idx_block[...], layout)
        store.put(s, _smem_gather(layout, (br, nj, bj), x_block.dtype)(x_block, ids),
                  out_gmem.at[pl.ds((cta * steps + s) * br, br)])

    specs = [gpu.BlockSpec((br, *x_gmem.shape[1:]), lambda s: (cta * steps + s, 0, 0)),
             gpu.BlockSpec((br, nj, bj), lambda s: (cta * steps + s, 0, 0))]
    gpu.emit_pipeline(step, grid=(steps,), in_specs=specs, max_concurrent_steps=min(stages, steps))(x_gmem, idx_gmem)
    gpu.wait_smem_to_gmem(0)


def _smem_gather(layout, shape, dtype):
    """(block, ids) -> block[r, ids] for a (br, C / bc, bc) SMEM block and (br, nj, bj) int32
    indices in `layout`: each thread loads its own elements from SMEM at addresses its indices
    give. Pallas has no array-indexed load (see the gather task's docstring), so this is inline
    Mosaic GPU: per register vector, the row from the layout's thread indices and, per element,
    the index clamped into the row and split into (C / bc, bc) coordinates."""
    gpu = ms.plgpu()

    @gpu.inline_mgpu(arg_types=(gpu.RefType(), layout),
                     return_type=gpu.ShapeDtypeStruct(shape, dtype, layout=layout))
    def gather(ctx, block, ids):
        from jax._src.lib.mlir import ir
        from jax._src.lib.mlir.dialects import arith, memref, vector
        from jax.experimental.mosaic.gpu import fragmented_array as fa

        index, i32 = ir.IndexType.get(), ir.IntegerType.get_signless(32)
        _, nc, bc = ir.MemRefType(block.type).shape
        element = ir.MemRefType(block.type).element_type
        const = lambda v: arith.constant(i32, v)
        out = np.empty(ids.registers.shape, dtype=object)
        for pos, (row, *_) in zip(np.ndindex(ids.registers.shape), ids.layout.thread_idxs(ids.shape)):
            reg = ids.registers[pos]
            n = ir.VectorType(reg.type).shape[0]
            loaded = []
            for e in range(n):
                col = vector.extract(reg, dynamic_position=[], static_position=[e])
                col = arith.minsi(arith.maxsi(col, const(0)), const(nc * bc - 1))
                hi, lo = (arith.index_cast(index, arith.divui(col, const(bc))),
                          arith.index_cast(index, arith.remui(col, const(bc))))
                loaded.append(memref.load(block, [row, hi, lo]))
            out[pos] = vector.from_elements(ir.VectorType.get((n,), element), loaded)
        return fa.FragmentedArray(_registers=out, _layout=ids.layout, _is_signed=None)

    return gather


KERNELS = {
    "one_hot": lambda ids, interpret=ms.AUTO: one_hot(ids, ONE_HOT_CLASSES, interpret=interpret),
    "embedding_lookup": lambda table, ids, interpret=ms.AUTO: embedding_lookup(table, ids, interpret=interpret),
    "gather": lambda x, idx, interpret=ms.AUTO: gather(x, idx, interpret=interpret),
}
