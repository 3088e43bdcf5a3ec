"""qk_softmax's Mosaic GPU kernel (`probabilities`): softmax(q k^T / sqrt(D)) over the keys,
the (N, N) probability matrix, in one `plgpu.kernel` (custom call `mosaic_gpu_v2`, Lane
semantics) built from kernels/mosaic_attention.py's pieces. Not a task.

Grid (64-query block, column split). A CTA's first pass walks every key tile through the TMA
ring of k tiles (mosaic_attention.Ring) and keeps the online row max and exp-sum of the wgmma
scores (float32: TF32 with q rounded to nearest TF32 once; 16-bit: scaled after the dot); its
second recomputes the score tiles of its own columns and stores exp2(s - m) / l through two
SMEM slots and TMA stores (mosaic_stream.SlotStore). Column splits give the N*N store enough
CTAs (mosaic_attention.default_col_splits: about half the SMs' count) at the cost of repeating
the first pass. One warpgroup: the CPU interpreter runs it at every size.
"""

from __future__ import annotations

import functools
import math

import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from pallasbench.kernels import mosaic_attention as ma
from pallasbench.kernels import mosaic_stream as ms


def probabilities(q, k, *, name: str, config: Config | None = None, interpret=ms.AUTO):
    """softmax(q k^T / sqrt(D)) over the keys, the (N, N) matrix, for (N, D) q and k."""
    n, d = q.shape
    if k.shape != q.shape or k.dtype != q.dtype:
        ms.refuse(name, f"q {q.shape}/{q.dtype}, k {k.shape}/{k.dtype}: one shape and dtype")
    itemsize = q.dtype.itemsize
    cfg = config or ma.config_for(name, n, d, itemsize, attention=False)
    bk, splits = cfg.block_kv, cfg.col_splits
    if splits < 1 or (n // bk) % splits:
        ms.refuse(name, f"{splits} column splits of {n // bk} key tiles: a divisor is needed")
    stages = min(cfg.stages, n // bk)
    ma.check(name, cfg, n, d, (stages * bk * d + ma.BLOCK_Q * d + 2 * ma.BLOCK_Q * bk) * itemsize)
    gpu = ms.plgpu()
    out_t = ma.transforms(bk, q.dtype)
    scratch = [gpu.SMEM((ma.BLOCK_Q, d), q.dtype, transforms=ma.transforms(d, q.dtype)),
               gpu.SMEM((stages, bk, d), q.dtype, transforms=ma.transforms(d, q.dtype)),
               gpu.SMEM((2, ma.BLOCK_Q, bk), q.dtype, transforms=out_t),
               gpu.Barrier(num_barriers=1), gpu.Barrier(num_barriers=stages)]
    body = functools.partial(_probabilities_kernel, bk=bk, stages=stages, splits=splits,
                             scale=ma.LOG2E / math.sqrt(d), interpreting=ms.interpret_for(interpret) is not None)
    k3 = k.reshape(1, n, d)  # the ring indexes a head axis
    return ma.launch(body, (q, k3), ms.struct((n, n), q.dtype), (n // ma.BLOCK_Q, splits), ("qblock", "split"),
                     scratch, name, interpret)


def _probabilities_kernel(q_gmem, k_gmem, o_gmem, q_smem, k_smem, o_smem, q_bar, k_bar, *, bk, stages,
                          splits, scale, interpreting):
    gpu = ms.plgpu()
    qblock, split = lax.axis_index("qblock"), lax.axis_index("split")
    n = q_gmem.shape[0]
    tiles = n // bk // splits  # key tiles whose probabilities this CTA stores
    first = split * tiles
    rows = pl.ds(qblock * ma.BLOCK_Q, ma.BLOCK_Q)
    gpu.copy_gmem_to_smem(q_gmem.at[rows], q_smem, q_bar.at[0])
    stats_ring = ma.Ring((k_gmem,), (k_smem,), (k_bar,), 0, bk, stages)
    store_ring = ma.Ring((k_gmem,), (k_smem,), (k_bar,), 0, bk, stages, tile_of=lambda t: first + t)
    stats_ring.prologue(n // bk)
    gpu.barrier_wait(q_bar.at[0])
    score_scale = ma.prepare_queries(q_smem, scale, interpreting)
    lay = ma.wgmma_layout()

    def scores(ring, j, steps):
        slot = ring.slot(j)
        s = ma.scores(q_smem, ring.wait(0, slot), bk)
        ring.refill(0, j, slot, steps)
        return s if score_scale is None else s * score_scale

    def stats(j, carry):  # pass 1: the online row max and exp-sum over every key
        m, l = carry
        s = scores(stats_ring, j, n // bk)
        m_new = jnp.maximum(m, jnp.max(s, axis=1))
        return m_new, l * jnp.exp2(m - m_new) + jnp.sum(jnp.exp2(s - ma.spread(m_new, s.shape)), axis=1)

    m, l = lax.fori_loop(0, n // bk, stats, (
        ma.cast(jnp.full((ma.BLOCK_Q,), -jnp.inf, jnp.float32), lay.reduce(1), interpreting),
        ma.cast(jnp.zeros((ma.BLOCK_Q,), jnp.float32), lay.reduce(1), interpreting)))
    inv = 1.0 / l
    store_ring.prologue(tiles)
    out = ms.SlotStore(o_smem, 2)

    def store(j, carry):  # pass 2: this CTA's columns, normalised
        s = scores(store_ring, j, tiles)
        p = jnp.exp2(s - ma.spread(m, s.shape)) * ma.spread(inv, s.shape)
        out.put(j, p.astype(o_smem.dtype), o_gmem.at[rows, pl.ds((first + j) * bk, bk)])
        return carry

    lax.fori_loop(0, tiles, store, 0)
    gpu.wait_smem_to_gmem(0)
