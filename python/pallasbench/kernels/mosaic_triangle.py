"""triangle_update's Mosaic GPU kernel: out = pair + u, u[i, j, c] = sum_k pair[i, k, c] m[i, k]
pair[k, j, c] m[k, j], in one `plgpu.kernel` of one warpgroup a CTA (plumbing in mosaic_stream),
on CUDA cores in float32 FMAs.

Why not wgmma: pair is (N, N, C) with the channel minor, so a channel's (N, N) matrix is a
stride-C view, and Mosaic GPU's wgmma reads K-major tiles from SMEM (32-bit operands K-major
only: "Only f16 WGMMA supports transposes"): TMA cannot transpose (a box 1 channel wide is 4
bytes, under its 16) and a channel-major copy outside the kernel moves the whole tensor again.
With the channel minor, u[i, :, :] = sum_k (pair[i, k, :] m[i, k]) * (pair[k, :, :] m[k, :]):
row k of pair, scaled by a channel vector along j and a mask column along c, which Lane
semantics broadcasts in registers (rows_layout: warps along j, lanes along c).

CTA (ib, jb) owns rows i0 .. i0 + ri and columns j0 .. j0 + bj, all channels: float32
accumulators of (bj, C) per row. It streams k in blocks of kb through a `stages`-slot TMA
ring (emit_pipeline): pair[k, j-block, :] (kb, bj, C) and pair[i-rows, k, :] (ri, kb, C); the
mask's rows (ri, N) and columns (N, bj) and the residual pair[i-rows, j-block, :] come in once.
Each pair[k, j, c] loaded from SMEM feeds ri FMAs. Accumulation is float32 at every dtype (fp32
FMAs: no TF32 rounding), the output rounded once to pair's dtype.

Channels fewer than 32 (SMALL: C 8) cannot fill rows_layout's 32 lanes, and a CTA's (bj, C) row
block there has fewer elements than a warpgroup has threads: `_narrow_kernel` keeps the CTA's
accumulators as one (ri, bj, C) array instead (narrow_layout: warps along i, lanes along j and
c), each loaded pair element feeding one FMA. Knobs: "mosaic_bj", "mosaic_stages".
"""

from __future__ import annotations

import functools

import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from pallasbench.kernels import mosaic_stream as ms
from pallasbench.task import tuning

ACC_ELEMS = 8192  # float32 accumulators a CTA: 64 a thread
BLOCK_BYTES = 16384  # bytes of a (kb, bj, C) block of pair rows


def _divisor_at_least(n: int, start: int, ok) -> int | None:
    """The smallest divisor d >= start of n with ok(d), else None."""
    return next((d for d in range(max(1, start), n + 1) if n % d == 0 and ok(d)), None)


def triangle_update(pair, mask, *, name="triangle_update", interpret=ms.AUTO):
    n, n2, c = pair.shape
    itemsize = pair.dtype.itemsize
    # Accumulators a CTA: enough CTAs for two an SM where the problem allows (MEDIUM: 128), at
    # most ACC_ELEMS; a quarter of them along j, so each B row feeds 4 rows' FMAs.
    elems = max(1024, min(ACC_ELEMS, n * n * c // (2 * ms.NUM_SMS)))
    bj = min(n, tuning.choice(name, "mosaic_bj", max(8, elems // (4 * c))))
    stages = tuning.choice(name, "mosaic_stages", 2)
    interpret = ms.interpret_for(interpret)
    interpreting = interpret is not None
    rows_ok = lambda d: d * n * mask.dtype.itemsize % ms.COPY_QUANTUM == 0  # the mask rows' copy
    ri = _divisor_at_least(n, min(n, max(1, elems // (bj * c))), rows_ok)
    kb = max(d for d in range(1, n + 1) if n % d == 0 and d * bj * c * itemsize <= max(BLOCK_BYTES, bj * c * itemsize))
    if (n2 != n or mask.shape != (n, n) or n % bj or ri is None
            or bj * c * itemsize * kb % ms.COPY_QUANTUM or n * bj * mask.dtype.itemsize % ms.COPY_QUANTUM
            or ri * kb * c * itemsize % ms.COPY_QUANTUM):
        ms.refuse(name, f"pair {pair.shape}, mask {mask.shape}: (N, N, C) and (N, N) and blocks of "
                        f"whole {ms.COPY_QUANTUM}-byte copies are needed")
    gpu = ms.plgpu()
    smem = (stages * (kb * bj + ri * kb) * c + 2 * ri * bj * c) * itemsize + (ri * n + n * bj) * mask.dtype.itemsize
    ms.check_smem(name, smem, f"{stages} stages of {kb} pair rows")
    narrow = c % 32 != 0
    if narrow and (32 % c or ri % 4 or bj % (32 // c)):
        ms.refuse(name, f"pair {pair.shape}: C a multiple of 32 or a divisor of it (with 4 rows and "
                        f"{32 // max(1, c)} columns a CTA at least) is needed")
    body = functools.partial(_narrow_kernel if narrow else _kernel, ri=ri, bj=bj, kb=kb, n=n, stages=stages,
                             interpreting=interpreting)
    scratch = [gpu.SMEM((ri, n), mask.dtype), gpu.SMEM((n, bj), mask.dtype), gpu.SMEM((ri, bj, c), pair.dtype),
               gpu.SMEM((ri, bj, c), pair.dtype), gpu.Barrier(num_arrivals=3, num_barriers=1)]
    return ms.launch(body, [pair, mask], ms.struct(pair.shape, pair.dtype), ctas=(n // ri) * (n // bj),
                     scratch=scratch, name=name, interpret=interpret)


def _cta_tile(pair, mask, mrows_smem, mcols_smem, res_smem, barrier, *, ri, bj, n):
    """The CTA's (ri, bj) output tile, both kernels': its block indices and row/column slices, with
    its mask rows, mask columns and the residual pair tile brought to SMEM (waited for)."""
    gpu = ms.plgpu()
    col_blocks = n // bj
    cta = lax.axis_index("cta")
    ib, jb = lax.div(cta, jnp.int32(col_blocks)), lax.rem(cta, jnp.int32(col_blocks))
    rows, cols = pl.ds(ib * ri, ri), pl.ds(jb * bj, bj)
    gpu.copy_gmem_to_smem(mask.at[rows], mrows_smem, barrier.at[0])
    gpu.copy_gmem_to_smem(mask.at[:, cols], mcols_smem, barrier.at[0])
    gpu.copy_gmem_to_smem(pair.at[rows, cols], res_smem, barrier.at[0])
    gpu.barrier_wait(barrier.at[0])
    return ib, jb, rows, cols


def _kernel(pair, mask, out_gmem, mrows_smem, mcols_smem, res_smem, out_smem, barrier, *, ri, bj, kb, n, stages,
            interpreting):
    gpu = ms.plgpu()
    c = pair.shape[2]
    lay = ms.Layouts(ms.rows_layout(min(ms.VEC, max(1, c // 32))), interpreting)
    ib, jb, rows, cols = _cta_tile(pair, mask, mrows_smem, mcols_smem, res_smem, barrier, ri=ri, bj=bj, n=n)
    shape = (bj, c)

    def body(indices, b_block, a_block, accs):
        (s,) = indices
        accs = list(accs)
        for kk in range(kb):
            k = s * kb + kk
            m_col = lay.load_reduced(mcols_smem.at[k], 1)  # m[k, j] along j
            b = lay.load(b_block.at[kk]) * lay.spread(m_col, shape, 1)
            for r in range(ri):
                a = lay.load_reduced(a_block.at[r, kk], 0) * mrows_smem[r, k].astype(jnp.float32)
                accs[r] = accs[r] + lay.spread(a, shape, 0) * b
        return tuple(accs)

    specs = [gpu.BlockSpec((kb, bj, c), lambda s: (s, jb, 0)), gpu.BlockSpec((ri, kb, c), lambda s: (ib, s, 0))]
    zeros = tuple(lay.cast(jnp.zeros(shape, jnp.float32)) for _ in range(ri))
    accs = gpu.emit_pipeline(body, grid=(n // kb,), in_specs=specs, init_carry=zeros,
                             max_concurrent_steps=min(stages, n // kb))(pair, pair)
    for r in range(ri):
        out_smem[r] = (lay.load(res_smem.at[r]) + accs[r]).astype(out_smem.dtype)
    gpu.commit_smem()
    gpu.copy_smem_to_gmem(out_smem, out_gmem.at[rows, cols])
    gpu.wait_smem_to_gmem(0)


def narrow_layout(c: int):
    """(ri, bj, C) arrays for C < 32 dividing 32: (4, 32 / C, C) tiles, warp w holding row w,
    its 32 lanes the tile's (j, c) pairs, one element each."""
    gpu = ms.plgpu()
    return gpu.Layout.TILED(gpu.Tiling(((4, 32 // c, c), (1,))), warp_dims=(-4,), lane_dims=(-3, -2),
                            vector_dim=-1)


def _narrow_kernel(pair, mask, out_gmem, mrows_smem, mcols_smem, res_smem, out_smem, barrier, *, ri, bj, kb, n,
                   stages, interpreting):
    gpu = ms.plgpu()
    c = pair.shape[2]
    layout = narrow_layout(c)
    lay = ms.Layouts(layout, interpreting)
    ib, jb, rows, cols = _cta_tile(pair, mask, mrows_smem, mcols_smem, res_smem, barrier, ri=ri, bj=bj, n=n)
    shape = (ri, bj, c)

    def spread(ref, axes, dims):  # a ref's value in the layout reduced over `axes`, broadcast back
        value = lay.cast(ref[...], layout.reduce(axes)).astype(jnp.float32)
        return lay.cast(lax.broadcast_in_dim(value, shape, dims))

    row = lay.iota(shape, 0)

    def body(indices, b_block, a_block, acc):
        (s,) = indices
        for kk in range(kb):
            k = s * kb + kk
            b = spread(b_block.at[kk], (0,), (1, 2)) * spread(mcols_smem.at[k], (0, 2), (1,))
            # m[i, k] down the rows, from scalars: a strided (ri,) SMEM load does not lower
            # ("Failed to prove that vector transfers don't cross swizzle tile boundaries").
            m_row = jnp.zeros(shape, jnp.float32)
            for r in range(ri):
                m_row = jnp.where(row == r, mrows_smem[r, k].astype(jnp.float32), m_row)
            a = spread(a_block.at[:, kk], (1,), (0, 2)) * m_row
            acc = acc + a * b
        return acc

    specs = [gpu.BlockSpec((kb, bj, c), lambda s: (s, jb, 0)), gpu.BlockSpec((ri, kb, c), lambda s: (ib, s, 0))]
    acc = gpu.emit_pipeline(body, grid=(n // kb,), in_specs=specs, init_carry=lay.cast(jnp.zeros(shape, jnp.float32)),
                            max_concurrent_steps=min(stages, n // kb))(pair, pair)
    out_smem[...] = (lay.load(res_smem) + acc).astype(out_smem.dtype)
    gpu.commit_smem()
    gpu.copy_smem_to_gmem(out_smem, out_gmem.at[rows, cols])
    gpu.wait_smem_to_gmem(0)


KERNELS = {"triangle_update": lambda pair, mask, interpret=ms.AUTO: triangle_update(pair, mask, interpret=interpret)}
