"""scatter_add's Mosaic GPU kernels (GPU only; plumbing in mosaic_stream, ids as mosaic_index's).

Two kernels: CTA (column strip, row part) zeroes a (num_rows, 32) float32 accumulator in SMEM,
streams its part's update tiles through a TMA ring and adds each element into the accumulator
row its id names with SMEM float atomics (inline Mosaic GPU), then stores it as its part's
partial sum; the second kernel sums the parts and rounds once. The accumulator lives in SMEM
because a plgpu.kernel's outputs start uninitialised and cannot be aliased to a zeroed input: no
CTA could zero the output before the others add into it.

Tunable under the task's `name` (pallasbench.task.tuning): "mosaic_strip" (accumulator columns),
"mosaic_tile_rows", "mosaic_stages".
"""

from __future__ import annotations

import functools

import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.experimental import pallas as pl

from pallasbench.kernels import mosaic_stream as ms
from pallasbench.kernels.mosaic_index import ID_BLOCK
from pallasbench.task import tuning

SCATTER_ROWS = 1024  # scatter_add's NUM_ROWS (its task file)


def scatter_add(updates, idx, num_rows: int, *, name="scatter_add", interpret=ms.AUTO):
    """zeros((num_rows, D)).at[idx].add(updates) at the updates' dtype, summed in float32, ids
    clamped into [0, num_rows). GPU only: the SMEM atomics are inline Mosaic GPU."""
    n, d = updates.shape
    if idx.shape != (n,) or idx.dtype != jnp.int32:
        ms.refuse(name, f"updates {updates.shape} and idx {idx.shape} {idx.dtype}: int32 ids, one a row")
    bc = tuning.choice(name, "mosaic_strip", SCATTER_STRIP)
    tr = tuning.choice(name, "mosaic_tile_rows", 128)
    stages = tuning.choice(name, "mosaic_stages", 2)
    vec = 4 if bc % 4 == 0 and tr * bc % (4 * 128) == 0 else 1
    # A thread's registers hold the same columns (vec * 128 elements a register step) only where
    # bc divides the step: _smem_add_rows sums runs of them.
    if d % bc or n % tr or tr > ms.MAX_BOX or bc * updates.dtype.itemsize % 16 or tr * bc % (vec * 128) \
            or vec * 128 % bc or num_rows % ms.MAX_BOX:
        ms.refuse(name, f"updates {updates.shape}, {num_rows} output rows: ({tr}, {bc}) tiles dividing the "
                        f"updates, columns dividing {vec * 128}, rows of 16 bytes, output rows a multiple "
                        f"of {ms.MAX_BOX}")
    strips, units = d // bc, n // tr
    # Row parts: enough CTAs for the SMs (one a SM: the accumulator fills shared memory), each
    # part's ids a whole number of 128-byte copies.
    fits = [p for p in range(1, units + 1) if units % p == 0 and (units // p * tr) % ID_BLOCK == 0]
    if not fits:
        ms.refuse(name, f"{n} update rows: parts of a multiple of {ID_BLOCK} rows are needed")
    parts = max([p for p in fits if p * strips <= max(ms.NUM_SMS, strips)] or [min(fits)])
    rows_per_part = n // parts
    smem = num_rows * bc * 4 + stages * tr * bc * updates.dtype.itemsize + rows_per_part * 4
    ms.check_smem(name, smem, f"a ({num_rows}, {bc}) float32 accumulator and {stages} stages")
    gpu = ms.plgpu()
    scratch = [gpu.SMEM((num_rows, bc), jnp.float32), gpu.SMEM((rows_per_part,), jnp.int32),
               gpu.Barrier(num_arrivals=ms.range_copies(rows_per_part), num_barriers=1)]
    body = functools.partial(_scatter_kernel, parts=parts, steps=units // parts, tr=tr, vec=vec, stages=stages)
    partial = ms.launch(body, [updates, idx], ms.struct((parts, num_rows, d), jnp.float32), ctas=parts * strips,
                        scratch=scratch, name=f"{name}_partials", interpret=ms.interpret_for(interpret))
    return _sum_parts(partial, updates.dtype, name=name, interpret=interpret)


SCATTER_STRIP = 32  # columns of a CTA's accumulator: (1024, 32) float32 is 128 KiB of SMEM


def _scatter_kernel(upd_gmem, idx_gmem, part_gmem, acc, idx_smem, barrier, *, parts, steps, tr, vec, stages):
    gpu = ms.plgpu()
    num_rows, bc = acc.shape
    cta = lax.axis_index("cta")
    strip, part = lax.div(cta, jnp.int32(parts)), lax.rem(cta, jnp.int32(parts))
    ms.load_range(idx_gmem, idx_smem, barrier.at[0], part * (steps * tr), steps * tr)
    acc_layout = gpu.Layout.WG_STRIDED(acc.shape, 4)
    acc[...] = gpu.layout_cast(jnp.zeros(acc.shape, jnp.float32), acc_layout)
    gpu.barrier_wait(barrier.at[0])
    ms.release_smem()  # every warp's zeros before any warp's atomics
    tile_layout = gpu.Layout.WG_STRIDED((tr, bc), vec)

    def body(indices, tile):
        (s,) = indices
        values = gpu.layout_cast(tile[...], tile_layout).astype(jnp.float32)
        _smem_add_rows(tile_layout)(acc, idx_smem.at[pl.ds(s * tr, tr)], values)
        ms.release_smem()  # the slot is refilled as the body returns

    spec = gpu.BlockSpec((tr, bc), lambda s: (part * steps + s, strip))
    gpu.emit_pipeline(body, grid=(steps,), in_specs=[spec], max_concurrent_steps=min(stages, steps))(upd_gmem)
    ms.release_smem()  # every atomic before the TMA stores read the accumulator
    for r0 in range(0, num_rows, ms.MAX_BOX):
        gpu.copy_smem_to_gmem(acc.at[pl.ds(r0, ms.MAX_BOX)],
                              part_gmem.at[part, pl.ds(r0, ms.MAX_BOX), pl.ds(strip * bc, bc)])
    gpu.wait_smem_to_gmem(0)


def _smem_add_rows(layout):
    """(acc, ids, values) -> acc[ids[r], c] += values[r, c] for a (tr, bc) float32 tile in a
    WG_STRIDED `layout` (inline Mosaic GPU: Pallas's atomic_add adds an array to a ref of its own
    shape, not rows to data-dependent rows). A thread's register vectors hold the same columns of
    rows 16 apart (the layout steps 512 elements a register, bc divides 512), so it sums runs of
    registers whose rows share an id before one shared-memory float atomic per run and column
    (a run's other atomics add 0.0, exactly nothing): all rows into one id (the degenerate case)
    make chains of N / parts / registers atomics, not N / parts. Ids are clamped into the
    accumulator."""
    gpu = ms.plgpu()

    @gpu.inline_mgpu(arg_types=(gpu.RefType(), gpu.RefType(), layout))
    def add(ctx, acc, ids, values):
        from jax._src.lib.mlir import ir
        from jax._src.lib.mlir.dialects import arith, memref, vector

        index, i32 = ir.IndexType.get(), ir.IntegerType.get_signless(32)
        num_rows = ir.MemRefType(acc.type).shape[0]
        addf = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(arith.AtomicRMWKind.addf))

        def flush(run, row_id, col):
            for e in range(ir.VectorType(run.type).shape[0]):
                element = vector.extract(run, dynamic_position=[], static_position=[e])
                memref.atomic_rmw(addf, element, acc, [row_id, arith.addi(col, arith.constant(index, e))])

        run = run_id = zero = None
        for pos, (row, col) in zip(np.ndindex(values.registers.shape), values.layout.thread_idxs(values.shape)):
            row_id = memref.load(ids, [row])
            row_id = arith.minsi(arith.maxsi(row_id, arith.constant(i32, 0)), arith.constant(i32, num_rows - 1))
            row_id = arith.index_cast(index, row_id)
            reg = values.registers[pos]
            if run is None:
                run, run_id = reg, row_id
                zero = arith.constant(reg.type, ir.DenseElementsAttr.get_splat(
                    reg.type, ir.FloatAttr.get(ir.VectorType(reg.type).element_type, 0.0)))
                continue
            same = arith.cmpi(arith.CmpIPredicate.eq, row_id, run_id)
            flush(arith.select(same, zero, run), run_id, col)
            run, run_id = arith.select(same, arith.addf(run, reg), reg), row_id
        flush(run, run_id, col)

    return add


def _sum_parts(partial, dtype, *, name, interpret):
    """partial.sum(axis=0) as `dtype`: CTA c sums the (parts, br, bc) block of its output tile in
    float32 registers and stores it by TMA."""
    parts, rows, d = partial.shape
    bc = min(d, 32 * ms.VEC)
    br = max(4, min(ms.MAX_BOX, SUM_BLOCK_BYTES // (parts * bc * 4)))
    while rows % br:
        br //= 2
    if d % bc or bc % 32 or parts > ms.MAX_BOX or br < 4:
        ms.refuse(name, f"{parts} partial sums of ({rows}, {d}): columns a multiple of 32")
    gpu = ms.plgpu()
    interpret = ms.interpret_for(interpret)
    scratch = [gpu.SMEM((parts, br, bc), jnp.float32), gpu.SMEM((br, bc), dtype),
               gpu.Barrier(num_arrivals=1, num_barriers=1)]
    body = functools.partial(_sum_parts_kernel, tiles=d // bc, vec=min(ms.VEC, bc // 32),
                             interpreting=interpret is not None)
    return ms.launch(body, [partial], ms.struct((rows, d), dtype), ctas=rows // br * (d // bc),
                     scratch=scratch, name=name, interpret=interpret)


SUM_BLOCK_BYTES = 64 * 1024  # the partial sums of one output tile in SMEM


def _sum_parts_kernel(partial, out_gmem, parts_smem, out_smem, barrier, *, tiles, vec, interpreting):
    gpu = ms.plgpu()
    parts, br, bc = parts_smem.shape
    lay = ms.Layouts(ms.rows_layout(vec), interpreting)
    cta = lax.axis_index("cta")
    rows, cols = pl.ds(lax.div(cta, jnp.int32(tiles)) * br, br), pl.ds(lax.rem(cta, jnp.int32(tiles)) * bc, bc)
    gpu.copy_gmem_to_smem(partial.at[:, rows, cols], parts_smem, barrier.at[0])
    gpu.barrier_wait(barrier.at[0])
    total = lay.load(parts_smem.at[0])
    for p in range(1, parts):
        total = total + lay.load(parts_smem.at[p])
    out_smem[...] = total.astype(out_smem.dtype)
    gpu.commit_smem()
    gpu.copy_smem_to_gmem(out_smem, out_gmem.at[rows, cols])
    gpu.wait_smem_to_gmem(0)


KERNELS = {
    "scatter_add": lambda updates, idx, interpret=ms.AUTO: scatter_add(updates, idx, SCATTER_ROWS,
                                                                        interpret=interpret),
}
