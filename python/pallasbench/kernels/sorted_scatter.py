"""Scatter-add without float atomics: a counting sort of the ids, then one sum per output row.

out[r] = sum of updates[i] over the i with idx[i] == r, in three Pallas kernels and one small XLA
prefix sum:
1. count: one program per chunk of ids counts how many name each output row (a compare of the
   chunk against every row number, summed; integers, so exact);
2. the exclusive prefix sum of those counts in (row, chunk) order (XLA, num_rows x chunks int32):
   where each chunk's rows of each output row start in the sorted order;
3. place: one program per chunk ranks each id among the equal ids before it in its chunk and
   writes its row number to perm[start + rank]: perm lists the update rows grouped by output row,
   in their original order within a group (a stable sort);
4. segment sums: one program per output row and column tile gathers its group's rows from perm,
   `segment_rows` at a time, sums them in float32 and writes the row once, rounded to the
   updates' dtype.

Why: float atomics make the sums' order (and so their rounding) depend on the schedule, and
Pallas's Triton atomic_add always carries acquire-release semantics; here the order is fixed
(rows in index order, a tree sum within each gathered block) and each output element is written
once. The cost is the sort's passes over the ids (4 bytes a row against D floats a row) and a
group's gathers, which run one after another: the degenerate all-one-id case is one program's
loop over every row (correct, and slow).

Ids outside [0, num_rows) are out of the tasks' domain: they are dropped (counted nowhere,
placed nowhere).
"""

import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

from pallasbench import task as tl
from pallasbench.kernels import masked

COMPARE_STEP = 16  # ids compared at once against the row numbers or the chunk's ids


def _inside(ids, num_rows: int):
    return (ids >= 0) & (ids < num_rows)


def _count_body(idx_ref, counts_ref, *, num_rows: int):
    chunk = idx_ref.shape[0]
    rows = lax.broadcasted_iota(jnp.int32, (COMPARE_STEP, num_rows), 1)

    def add(s, acc):
        ids = idx_ref[pl.ds(pl.multiple_of(s * COMPARE_STEP, COMPARE_STEP), COMPARE_STEP)]
        return acc + jnp.sum((ids[:, None] == rows).astype(jnp.int32), axis=0)

    counts_ref[...] = lax.fori_loop(0, chunk // COMPARE_STEP, add, jnp.zeros((num_rows,), jnp.int32))


def _place_body(idx_ref, offsets_ref, perm_ref, *, num_rows: int):
    chunk = idx_ref.shape[0]
    c = pl.program_id(0)
    ids = idx_ref[...]
    me = lax.iota(jnp.int32, chunk)

    def count_before(s, rank):
        j0 = pl.multiple_of(s * COMPARE_STEP, COMPARE_STEP)
        others = idx_ref[pl.ds(j0, COMPARE_STEP)]
        j = j0 + lax.iota(jnp.int32, COMPARE_STEP)
        same = (ids[:, None] == others[None, :]) & (j[None, :] < me[:, None])
        return rank + jnp.sum(same.astype(jnp.int32), axis=1)

    rank = lax.fori_loop(0, chunk // COMPARE_STEP, count_before, jnp.zeros((chunk,), jnp.int32))
    inside = _inside(ids, num_rows)
    where = c * num_rows + jnp.clip(ids, 0, num_rows - 1)  # the clip only keeps a dropped id's read in range
    start = pltriton.load(offsets_ref.at[where], mask=inside, other=0)
    # A dropped id goes to its own slot of the scratch tail, not through a mask: a masked lane's
    # address would collide with a live one, and interpret mode's masked scatter writes the old
    # value back there (the GPU's does not).
    dump = perm_ref.shape[0] - chunk + me
    perm_ref[jnp.where(inside, start + rank, dump)] = c * chunk + me


def _segment_body(bounds_ref, perm_ref, upd_ref, o_ref, *, segment_rows: int):
    bd = o_ref.shape[1]
    r = pl.program_id(0)
    start, end = bounds_ref[r], bounds_ref[r + 1]
    cols = pl.program_id(1) * bd + lax.broadcasted_iota(jnp.int32, (segment_rows, bd), 1)

    def add(s, acc):
        k = start + s * segment_rows + lax.iota(jnp.int32, segment_rows)
        live = k < end
        rows = pltriton.load(perm_ref.at[k], mask=live, other=0)
        grid_rows = jnp.broadcast_to(rows[:, None], (segment_rows, bd))
        x = pltriton.load(upd_ref.at[grid_rows, cols], mask=jnp.broadcast_to(live[:, None], (segment_rows, bd)),
                          other=0)
        return acc + jnp.sum(x.astype(jnp.float32), axis=0)

    steps = (end - start + segment_rows - 1) // segment_rows
    total = lax.fori_loop(0, steps, add, jnp.zeros((bd,), jnp.float32))
    o_ref[...] = total[None, :].astype(o_ref.dtype)


def group_rows(idx, num_rows: int, *, sort_chunk: int, num_warps: int, name: str):
    """The stable counting sort of `idx` (steps 1-3 above): (bounds, perm) with perm[bounds[r]:
    bounds[r + 1]] the positions i with idx[i] == r, in increasing order. Entries of perm past
    bounds[num_rows] mean nothing (ids padded to a multiple of `sort_chunk`, then a scratch tail
    of `sort_chunk` slots where dropped ids are written)."""
    if sort_chunk < COMPARE_STEP or sort_chunk & (sort_chunk - 1):
        raise ValueError(f"{name}: sort_chunk={sort_chunk} is not a power of two >= {COMPARE_STEP}")
    ids = jnp.pad(idx.astype(jnp.int32), (0, -idx.shape[0] % sort_chunk), constant_values=num_rows)
    chunks = ids.shape[0] // sort_chunk
    params = tl.triton_params(num_warps=num_warps, num_stages=1)
    counts = pl.pallas_call(
        functools.partial(_count_body, num_rows=num_rows),
        out_shape=jax.ShapeDtypeStruct((chunks * num_rows,), jnp.int32),
        grid=(chunks,),
        in_specs=[pl.BlockSpec((sort_chunk,), lambda c: (c,))],
        out_specs=pl.BlockSpec((num_rows,), lambda c: (c,)),
        compiler_params=params, name=name + "_count",
    )(ids)
    # (row, chunk) order: row r's rows from chunk c start after every row < r and chunk < c of r.
    by_row = counts.reshape(chunks, num_rows).T.reshape(-1)
    ends = jnp.cumsum(by_row)
    offsets = (ends - by_row).reshape(num_rows, chunks).T.reshape(-1)
    bounds = jnp.append(offsets[:num_rows], ends[-1])
    perm = pl.pallas_call(
        functools.partial(_place_body, num_rows=num_rows),
        out_shape=jax.ShapeDtypeStruct((ids.shape[0] + sort_chunk,), jnp.int32),
        grid=(chunks,),
        in_specs=[pl.BlockSpec((sort_chunk,), lambda c: (c,)), pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        compiler_params=params, name=name + "_place",
    )(ids, offsets)
    return bounds, perm


def scatter_add(updates, idx, num_rows: int, *, sort_chunk: int, segment_rows: int, max_cols: int,
                num_warps: int, name: str):
    """zeros((num_rows, D), updates.dtype).at[idx].add(updates), summed in float32 (see above).

    Ragged shapes are padded: ids to a multiple of `sort_chunk` with an out-of-range id (dropped),
    columns to a multiple of the column tile min(max_cols, next_pow2(D)) (sliced off after)."""
    if segment_rows < 1 or segment_rows & (segment_rows - 1):
        raise ValueError(f"{name}: segment_rows={segment_rows} is not a power of two")
    bounds, perm = group_rows(idx, num_rows, sort_chunk=sort_chunk, num_warps=num_warps, name=name)
    d = updates.shape[1]
    bd = min(max_cols, tl.next_pow2(d))
    upd = masked.pad_to_multiple(updates, 1, bd)
    any_spec = pl.BlockSpec(memory_space=pl.ANY)
    out = pl.pallas_call(
        functools.partial(_segment_body, segment_rows=segment_rows),
        out_shape=jax.ShapeDtypeStruct((num_rows, upd.shape[1]), updates.dtype),
        grid=(num_rows, upd.shape[1] // bd),
        in_specs=[any_spec, any_spec, any_spec],
        out_specs=pl.BlockSpec((1, bd), lambda r, j: (r, j)),
        compiler_params=tl.triton_params(num_warps=num_warps, num_stages=1), name=name + "_segments",
    )(bounds, perm, upd)
    return out if upd.shape[1] == d else out[:, :d]
