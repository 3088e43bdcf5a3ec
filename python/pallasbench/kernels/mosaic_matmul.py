"""Mosaic GPU (Hopper) tiled matmul with a fused epilogue: the `backend="mosaic"` path of
tiled_matmul.fused_matmul (issue 19). Not a task (the registry never imports it by itself).

One `plgpu.kernel` (custom call `mosaic_gpu_v2`, Warpgroup lowering semantics, the default from
JAX 0.11 on, set explicitly because 0.10 defaulted to Lane), persistent and warp-specialised:

- Grid: one CTA per SM (at most `NUM_SMS`, at most one per output tile). Each CTA walks output
  tiles lin = sm, sm + #CTAs, ... (`plgpu.nd_loop`), mapped to (row tile, column tile) by
  `plgpu.planar_snake` (bands of `grid_width` tiles along `grid_minor`, alternate bands walked
  backwards, so consecutive tiles share operand panels in L2).
- Three warpgroups per CTA: one memory warpgroup issues the TMA loads (40 registers a thread) and
  two compute warpgroups issue wgmma (232 registers a thread). The K loop of each output tile is
  `plgpu.emit_pipeline_warp_specialized`: a ring of `stages` SMEM slots per operand, each filled
  by TMA with a 128-byte swizzle (the K step is 128 bytes of a row: 32 float32 / 64 16-bit
  columns) and released through a "consumed" barrier once both compute warpgroups' wgmma on it
  has finished (`wgmma_wait(0)` each step; the two compute warpgroups' wgmma overlap each other).
  Keeping one wgmma group in flight (`delay_release=1`, as JAX's non-persistent pipelines may)
  is refused: emit_pipeline_warp_specialized's memory warpgroup does not wait for the delayed
  last step's slot before the next tile's prologue refills it, a race in a persistent kernel.
- Operands: x (M, K) row-major is K-major already. The weight is either the packed K-major
  matrix of tiled_matmul.pack_weights, (n_w * N, K) interleaved per `width` columns (the layout
  TF32 wgmma needs: only 16-bit wgmma reads a transposed operand, so float32 weights are always
  packed), passed to wgmma as the transposed SMEM view; or, for 16-bit dots with one weight, the
  (K, N) weight as it is. The operands stay in their dtype in SMEM: float32 runs TF32 wgmma,
  bfloat16/float16 the 16-bit one, always into a float32 accumulator (`plgpu.ACC`).
- CTA tile: bm rows x `width` dot columns (all weights together). `wg_split="m"`: each compute
  warpgroup takes bm/2 rows and all columns (any n_w: one wgmma on the interleaved weight tile,
  the accumulator split into the n_w column blocks afterwards, as the Triton kernel does);
  `wg_split="n"` (n_w == 1): bm rows and width/2 columns each.
- Epilogue, per compute warpgroup: the accumulator is read into registers, split into its n_w
  parts, and `epilogue(*parts[, bias])` runs on the float32 tiles; the bias slice was brought to
  SMEM by TMA at the tile's start (overlapping the K loop) and is handed to the epilogue already
  broadcast to the tile's shape (the Triton path hands a (1, bn) row: same result for the
  elementwise epilogues of the suite). The result, cast to the output dtype, goes out in
  (epi_m, epi_n) sub-tiles through two SMEM slots per warpgroup and TMA stores
  (`copy_smem_to_gmem`), at most one store in flight per warpgroup while the next sub-tile is
  written; the next tile's epilogue waits for the previous stores to have read SMEM.

Not supported (fused_matmul raises, naming the task): a prologue on x, and `round_x` inside the
kernel (the Mosaic path rounds x with a separate XLA pass when asked). The kernel runs on Hopper
GPUs only: it has no interpret mode in the suite (refuse_interpret_mode): its three warpgroups
are beyond the CPU tracer's interpreter for Mosaic GPU kernels (worker/mosaic_interpret.py runs
one warpgroup a block), and JAX's own Mosaic GPU interpreter (interpret_params, for the tests)
cannot be exported to the executor.

Accuracy note (to check on the GPU): TF32 wgmma reads float32 operands from SMEM and drops their
low 13 mantissa bits (truncation), unlike Triton, which rounds each tile to nearest in registers
(cvt.rna). The packing pass rounds the weights to nearest TF32 for free (`round_w`, on by
default on this path); x is rounded only with `round_x` (one extra XLA pass over x).
"""

from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl


def _plgpu():
    """jax.experimental.pallas.mosaic_gpu, imported on first use: it imports absl-py, which the
    Triton path of the matmul tasks must not need (tiled_matmul imports this module, through
    fused_matmul_mosaic)."""
    from jax.experimental.pallas import mosaic_gpu

    return mosaic_gpu

# Streaming multiprocessors of an H200 (one persistent CTA each).
NUM_SMS = 132
# Shared memory a CTA may use on Hopper (227 KiB), less room for the barriers.
SMEM_BYTES = 232448 - 1024
# Registers a thread of the memory warpgroup keeps (the compute warpgroups share the rest).
MEMORY_REGISTERS = 40
COMPUTE_WGS = 2
# wgmma: one warpgroup covers 64 rows; N is a multiple of 8 up to 256.
WGMMA_M = 64
MAX_WGMMA_N = 256
# K step: 128-byte rows, the widest swizzle.
BK_BYTES = 128


@dataclasses.dataclass(frozen=True)
class Config:
    """Tiles and schedule of the Mosaic matmul (each field a tunable of fused_matmul, under its
    name prefixed with `mosaic_`)."""

    bm: int = 128  # CTA rows (both compute warpgroups)
    width: int = 128  # CTA dot columns, all weights together (n_w * bn)
    bk: int = 32  # K step
    stages: int = 4  # SMEM ring slots per operand
    wg_split: str = "m"  # "m": compute warpgroups split the rows; "n": the columns (n_w == 1)
    grid_minor: str = "n"  # planar_snake: tiles walked along this dimension within a band
    grid_width: int = 1  # planar_snake band width
    epi_m: int = 64  # epilogue store sub-tile
    epi_n: int = 64
    delay_release: int = 0  # wgmma groups kept in flight across K steps: 0 only (see above)


def default_config(itemsize: int) -> Config:
    """128 x 128 CTA tiles (64 x 128 per compute warpgroup), 128-byte K steps, 4 stages."""
    return Config(bk=BK_BYTES // itemsize)


def plan(m: int, n: int, n_w: int, itemsize: int) -> Config:
    """default_config, its width halved (down to 64) while the grid has fewer tiles than SMs:
    (m, k) @ (k, n) with n_w weights at MEDIUM (1024^2) gets 128 x 64 tiles, 128 CTAs."""
    cfg = default_config(itemsize)
    width = cfg.width
    while width > 64 and -(-m // cfg.bm) * -(-n * n_w // width) < NUM_SMS:
        width //= 2
    return dataclasses.replace(cfg, width=width)


def smem_bytes(cfg: Config, itemsize: int, out_itemsize: int, has_bias: bool) -> int:
    """Shared memory the kernel allocates: the operand ring, the epilogue slots, the bias."""
    ring = cfg.stages * (cfg.bm + cfg.width) * cfg.bk * itemsize
    epi = COMPUTE_WGS * 2 * cfg.epi_m * cfg.epi_n * out_itemsize
    bias = COMPUTE_WGS * cfg.width * 4 if has_bias else 0
    return ring + epi + bias


def _transforms(minor_elems: int, itemsize: int):
    plgpu = _plgpu()
    swizzle = plgpu.find_swizzle(minor_elems * itemsize * 8)
    return (plgpu.TilingTransform((8, swizzle // itemsize)), plgpu.SwizzleTransform(swizzle))


def check(cfg: Config, m: int, n: int, k: int, n_w: int, itemsize: int, out_itemsize: int,
          has_bias: bool, packed: bool) -> None:
    """Raise ValueError, saying why, for a configuration the kernel cannot run at (m, n, k)
    (n: output columns per weight; m, n, k already padded to the tiles)."""
    why = []
    if cfg.wg_split not in ("m", "n"):
        why.append(f"wg_split {cfg.wg_split!r} is not 'm' or 'n'")
    if cfg.wg_split == "n" and n_w > 1:
        why.append("wg_split 'n' needs one weight (the accumulator halves would split weights)")
    if not packed and n_w > 1:
        why.append("n_w > 1 needs the packed (interleaved, K-major) weights")
    if not packed and itemsize == 4:
        why.append("float32 (TF32) wgmma needs K-major (packed) weights")
    tile_m = cfg.bm // COMPUTE_WGS if cfg.wg_split == "m" else cfg.bm
    tile_w = cfg.width // COMPUTE_WGS if cfg.wg_split == "n" else cfg.width
    if tile_m % WGMMA_M:
        why.append(f"rows per warpgroup {tile_m} not a multiple of {WGMMA_M}")
    if tile_w % (8 * n_w) or tile_w > MAX_WGMMA_N:
        why.append(f"columns per warpgroup {tile_w} not a multiple of {8 * n_w} up to {MAX_WGMMA_N}")
    if (cfg.bk * itemsize) % BK_BYTES:
        why.append(f"bk {cfg.bk} not a multiple of {BK_BYTES} bytes")
    bn_wg = tile_w // n_w
    if tile_m % min(cfg.epi_m, tile_m) or bn_wg % min(cfg.epi_n, bn_wg):
        why.append(f"epilogue tile {cfg.epi_m}x{cfg.epi_n} does not divide {tile_m}x{bn_wg}")
    if m % cfg.bm or (n * n_w) % cfg.width or k % cfg.bk:
        why.append(f"({m}, {n}, {k}) not a multiple of the tiles ({cfg.bm}, {cfg.width // n_w}, {cfg.bk})")
    if cfg.stages < 2:
        why.append(f"stages {cfg.stages} (at least 2)")
    if cfg.delay_release != 0:
        why.append(f"delay_release {cfg.delay_release}: the next tile's prologue would refill the "
                   "last step's slot while its wgmma may still read it (persistent CTAs)")
    used = smem_bytes(cfg, itemsize, out_itemsize, has_bias)
    if used > SMEM_BYTES:
        why.append(f"{used} bytes of shared memory (at most {SMEM_BYTES})")
    if why:
        raise ValueError("mosaic matmul: " + "; ".join(why))


def _kernel(*refs, cfg: Config, n_w: int, packed: bool, has_bias: bool, epilogue, grid_mn,
            batch_tiles: int = 0, batch_n: int = 0):
    plgpu = _plgpu()
    x_gmem, w_gmem = refs[0], refs[1]
    bias_gmem = refs[2] if has_bias else None
    out_gmem = refs[-1]
    dtype, out_dtype = x_gmem.dtype, out_gmem.dtype
    itemsize = jnp.dtype(dtype).itemsize
    m_iters, n_iters = grid_mn
    k_iters = x_gmem.shape[1] // cfg.bk
    split_m = cfg.wg_split == "m"
    tile_m = cfg.bm // COMPUTE_WGS if split_m else cfg.bm  # rows of one warpgroup
    tile_w = cfg.width if split_m else cfg.width // COMPUTE_WGS  # dot columns of one warpgroup
    bn = cfg.width // n_w  # output columns of the CTA
    bn_wg = tile_w // n_w  # output columns of one warpgroup
    epi_m, epi_n = min(cfg.epi_m, tile_m), min(cfg.epi_n, bn_wg)
    delay = min(cfg.delay_release, max(k_iters - 1, 0), cfg.stages - 1)

    in_transforms = _transforms(cfg.bk, itemsize)  # x tiles and K-major weight tiles
    w_block = (cfg.width, cfg.bk) if packed else (cfg.bk, cfg.width)
    w_index = (lambda kk: (0, kk)) if packed else (lambda kk: (kk, 0))
    w_transforms = in_transforms if packed else _transforms(cfg.width, itemsize)
    out_transforms = _transforms(epi_n, jnp.dtype(out_dtype).itemsize)

    def pipeline(body, compute_context):
        return plgpu.emit_pipeline_warp_specialized(
            body,
            grid=(k_iters,),
            memory_registers=MEMORY_REGISTERS,
            in_specs=[
                plgpu.BlockSpec((cfg.bm, cfg.bk), lambda kk: (0, kk), transforms=in_transforms,
                                memory_space=plgpu.SMEM, delay_release=delay),
                plgpu.BlockSpec(w_block, w_index, transforms=w_transforms,
                                memory_space=plgpu.SMEM, delay_release=delay),
            ],
            wg_axis="wg",
            num_compute_wgs=COMPUTE_WGS,
            max_concurrent_steps=cfg.stages,
            compute_context=compute_context,
        )

    ignore = lambda *_, **__: None  # noqa: E731 - the bodies do not change the allocations
    scoped = dict(
        pipeline_allocs=pipeline(ignore, ignore).get_allocations(x_gmem, w_gmem),
        out_smem=plgpu.SMEM((COMPUTE_WGS, 2, epi_m, epi_n), out_dtype, transforms=out_transforms),
    )
    if has_bias:
        scoped["bias_smem"] = plgpu.SMEM((COMPUTE_WGS, bn_wg), bias_gmem.dtype)
        scoped["bias_barrier"] = plgpu.Barrier(num_barriers=COMPUTE_WGS)

    @functools.partial(pl.run_scoped, **scoped, collective_axes="wg")
    def _scope(pipeline_allocs, out_smem, bias_smem=None, bias_barrier=None):
        wg = lax.axis_index("wg")

        @plgpu.nd_loop((m_iters * n_iters,), collective_axes="sm")
        def _tile_loop(info):
            (lin,) = info.index
            m_idx, n_idx = plgpu.planar_snake(lin, (m_iters, n_iters),
                                              0 if cfg.grid_minor == "m" else 1, cfg.grid_width)
            cta_rows = pl.ds(m_idx * cfg.bm, cfg.bm)
            w_first = n_idx * cfg.width
            if batch_tiles:  # the row tile's batch picks its weights' block of rows
                w_first = w_first + lax.div(m_idx, batch_tiles) * batch_n
            w_rows_or_cols = pl.ds(w_first, cfg.width)
            if split_m:
                wg_rows, wg_cols = pl.ds(wg * tile_m, tile_m), pl.ds(0, tile_w)
                out_cols0 = n_idx * bn
            else:
                wg_rows, wg_cols = pl.ds(0, tile_m), pl.ds(wg * tile_w, tile_w)
                out_cols0 = n_idx * bn + wg * bn_wg
            out_rows0 = m_idx * cfg.bm + (wg * tile_m if split_m else 0)

            def compute_context(eval_pipeline):
                if has_bias:  # the bias slice lands while the K loop runs
                    plgpu.copy_gmem_to_smem(bias_gmem.at[pl.ds(out_cols0, bn_wg)],
                                            bias_smem.at[wg], bias_barrier.at[wg])

                @functools.partial(pl.run_scoped,
                                   acc_ref=plgpu.ACC((tile_m, tile_w), jnp.float32))
                def _acc_scope(acc_ref):
                    eval_pipeline(acc_ref)
                    acc = acc_ref[...]
                    parts = [acc[:, i * bn_wg:(i + 1) * bn_wg] for i in range(n_w)] if n_w > 1 else [acc]
                    extra = ()
                    if has_bias:
                        plgpu.barrier_wait(bias_barrier.at[wg])
                        bias = bias_smem[wg, :].astype(jnp.float32)  # a 16-bit bias widens here
                        extra = (lax.broadcast_in_dim(bias, (tile_m, bn_wg), (1,)),)
                    out = epilogue(*parts, *extra).astype(out_dtype)
                    plgpu.wait_smem_to_gmem(0, wait_read_only=True)  # previous tile's stores
                    for i in range(tile_m // epi_m):
                        for j in range(bn_wg // epi_n):
                            slot = (i * (bn_wg // epi_n) + j) % 2
                            plgpu.wait_smem_to_gmem(1, wait_read_only=True)
                            out_smem[wg, slot] = out[i * epi_m:(i + 1) * epi_m,
                                                     j * epi_n:(j + 1) * epi_n]
                            plgpu.commit_smem()
                            plgpu.copy_smem_to_gmem(
                                out_smem.at[wg, slot],
                                out_gmem.at[pl.ds(out_rows0 + i * epi_m, epi_m),
                                            pl.ds(out_cols0 + j * epi_n, epi_n)])

            def mma(_, x_smem, w_smem, acc_ref):
                w_view = w_smem.at[wg_cols].transpose((1, 0)) if packed else w_smem.at[:, wg_cols]
                plgpu.wgmma(acc_ref, x_smem.at[wg_rows], w_view)
                plgpu.wgmma_wait(delay)
                return acc_ref

            w_tile = w_gmem.at[w_rows_or_cols, :] if packed else w_gmem.at[:, w_rows_or_cols]
            pipeline(mma, compute_context)(x_gmem.at[cta_rows, :], w_tile,
                                           allocations=pipeline_allocs)

    plgpu.wait_smem_to_gmem(0, wait_read_only=True)  # every store read out before exit


def matmul(x, w, epilogue, *, bias=None, n_w: int = 1, packed: bool, config: Config,
           out_dtype=None, name: str = "mosaic_matmul", interpret=None, batches: int = 1):
    """epilogue(x @ w_1, ..., x @ w_n[, bias]) for padded operands.

    batches > 1: a batched matmul, x the batches' (M, K) rows stacked, (B * M, K), and w their
    packed weights stacked, (B * N, K) (n_w == 1, no bias); each row tile multiplies its own
    batch's weights, so M must be a multiple of config.bm.

    x: (M, K); w: packed (n_w * N, K) K-major interleaved per config.width columns
    (tiled_matmul.pack_weights with bn = width / n_w), or (K, N) when not `packed` (16-bit, n_w
    == 1); bias: (N,) in any float dtype (widened in the kernel) or None. M, N, K multiples of the
    tiles. x and w share a dtype.
    `interpret`: JAX's Mosaic GPU interpreter parameters (tests on the CPU only; see
    `interpret_params`), None on the GPU.
    """
    plgpu = _plgpu()
    m, k = x.shape
    n = (w.shape[0] // batches if packed else w.shape[1]) // (n_w if packed else 1)
    if batches > 1 and (not packed or n_w != 1 or bias is not None or (m // batches) % config.bm):
        raise ValueError(f"{name}: a batched matmul takes packed single weights, no bias, and "
                         f"{m // batches} rows a batch in whole {config.bm}-row tiles")
    if w.dtype != x.dtype:
        raise ValueError(f"{name}: x is {x.dtype} and the weights {w.dtype}")
    out_dtype = jnp.dtype(out_dtype or x.dtype)
    itemsize = jnp.dtype(x.dtype).itemsize
    check(config, m, n, k, n_w, itemsize, out_dtype.itemsize, bias is not None, packed)
    grid_mn = (m // config.bm, n * n_w // config.width)
    # The bias goes in as it is: widening it here would be an XLA convert outside the kernels.
    operands = (x, w) if bias is None else (x, w, bias)
    batching = dict(batch_tiles=m // batches // config.bm, batch_n=n) if batches > 1 else {}
    body = functools.partial(_kernel, cfg=config, n_w=n_w, packed=packed,
                             has_bias=bias is not None, epilogue=epilogue, grid_mn=grid_mn, **batching)
    body.__name__ = name  # the kernel's name in profiles
    call = plgpu.kernel(
        body,
        out_type=jax.ShapeDtypeStruct((m, n), out_dtype),
        grid=(min(NUM_SMS, grid_mn[0] * grid_mn[1]),),
        grid_names=("sm",),
        num_threads=COMPUTE_WGS + 1,
        thread_name="wg",
        compiler_params=plgpu.CompilerParams(lowering_semantics=plgpu.LoweringSemantics.Warpgroup),
        interpret=interpret,
    )
    return call(*operands)


def refuse_interpret_mode(task: str) -> None:
    """Raise NotImplementedError naming the task when Pallas interpret mode is on (the CPU
    worker): the Mosaic GPU kernel runs on Hopper GPUs only, and no task is switched to another
    kernel silently."""
    from pallasbench.worker import interpret

    if interpret.interpreting():
        raise NotImplementedError(
            f"{task}: the Mosaic GPU matmul (tuning backend 'mosaic') runs on Hopper GPUs only; "
            "Pallas interpret mode is on (CPU), and the kernel is not switched to Triton silently")


def interpret_params():
    """Parameters for JAX's Mosaic GPU interpreter (runs plgpu.kernel on the CPU, simulating
    SMEM, barriers and the warpgroups as threads): exported as plgpu.InterpretGPUParams from JAX
    0.11, only under jax._src in 0.10."""
    params = getattr(_plgpu(), "InterpretGPUParams", None)
    if params is None:
        from jax._src.pallas.mosaic_gpu.interpret.params import InterpretGPUParams as params
    return params()
