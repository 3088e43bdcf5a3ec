"""The FlashAttention-3-style schedule of kernels/mosaic_attention.py's `attention` (16-bit
q, k, v; `Config.compute_wgs == 2`, the default at 256 keys or more): one `plgpu.kernel` of three
warpgroups a CTA. Not a task.

- Warpgroups 0 and 1 compute, 64 query rows each (a CTA owns 128 rows); warpgroup 2 issues
  the TMA loads of the k/v ring (`stages` slots, one "landed" barrier a slot and operand) and
  refills a slot once both compute warpgroups have arrived on its "consumed" barrier. Register
  budget: 232 a thread for the compute warpgroups, 40 for the memory one.
- Ping-pong (FlashAttention-3's inter-warpgroup overlap): a two-arrival "schedule" barrier,
  crossed twice a key tile by each compute warpgroup (after issuing its q @ k^T wgmma, and at the
  end of its softmax), with warpgroup 1 one crossing behind: while one warpgroup runs its softmax
  on the CUDA cores, the other's wgmmas (its p @ v, then its next q @ k^T) hold the tensor cores.
- Per tile as in mosaic_attention: scores from wgmma (k's transposed SMEM view), scaled after
  the dot, the online softmax in registers (base 2), p @ v as p_hi v + p_lo v from registers.
- Causal (attention_forward): 64-key tiles; warpgroup w of query block i walks tiles 0..2i+w,
  the last one masked; warpgroup 0 has one tile fewer, whose barriers it crosses without
  computing so that the ring and the schedule stay in step.
- The output goes back through each warpgroup's q tile in SMEM and a TMA store.

It cannot run in the CPU interpreter (warpgroups that synchronise through barriers run
concurrently; worker/mosaic_interpret.py refuses num_threads > 1): SMALL shapes take the one
warpgroup kernel. float32 keeps the one-warpgroup kernel at every size: its p @ v reads v as
bfloat16 halves the warpgroup writes into SMEM, and two warpgroups' halves beside the float32
ring and q tiles pass the 227 KiB of a CTA at head dim 128.
"""

from __future__ import annotations

import functools
import math

import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from pallasbench.kernels import mosaic_attention as ma
from pallasbench.kernels import mosaic_stream as ms

COMPUTE_WGS = 2
BLOCK_Q = COMPUTE_WGS * ma.BLOCK_Q  # query rows of a CTA
COMPUTE_REGISTERS, MEMORY_REGISTERS = 232, 40


def smem_bytes(d: int, block_kv: int, stages: int, itemsize: int) -> int:
    return (BLOCK_Q + 2 * stages * block_kv) * d * itemsize


def attention(q, k, v, *, causal: bool, name: str, cfg: ma.Config):
    g, seq, d = q.shape
    if q.dtype.itemsize != 2:
        ms.refuse(name, f"{COMPUTE_WGS} compute warpgroups take 16-bit q, k, v, not {q.dtype}")
    if seq % BLOCK_Q or seq % cfg.block_kv or cfg.block_kv % 64 or (causal and cfg.block_kv != ma.BLOCK_Q):
        ms.refuse(name, f"sequence {seq}, {cfg.block_kv}-key tiles: {BLOCK_Q}-query blocks and whole "
                        f"tiles (causal: {ma.BLOCK_Q} keys) are needed")
    stages = min(cfg.stages, seq // cfg.block_kv)
    ms.check_smem(name, smem_bytes(d, cfg.block_kv, stages, 2), f"{stages} stages of {cfg.block_kv} keys")
    gpu = ms.plgpu()
    body = functools.partial(_kernel, bk=cfg.block_kv, stages=stages, causal=causal,
                             scale=ma.LOG2E / math.sqrt(d))
    body.__name__ = name
    return gpu.kernel(
        body, out_type=ms.struct(q.shape, q.dtype), grid=(g, seq // BLOCK_Q), grid_names=("head", "qblock"),
        num_threads=COMPUTE_WGS + 1, thread_name="wg",
        compiler_params=gpu.CompilerParams(lowering_semantics=gpu.LoweringSemantics.Lane),
    )(q, k, v)


def _kernel(q_gmem, k_gmem, v_gmem, o_gmem, *, bk, stages, causal, scale):
    gpu = ms.plgpu()
    d, dtype = q_gmem.shape[2], q_gmem.dtype
    t = ma.transforms(d, dtype)
    pl.run_scoped(
        functools.partial(_body, q_gmem, k_gmem, v_gmem, o_gmem, bk=bk, stages=stages, causal=causal, scale=scale),
        q_smem=gpu.SMEM((COMPUTE_WGS, ma.BLOCK_Q, d), dtype, transforms=t),
        k_smem=gpu.SMEM((stages, bk, d), dtype, transforms=t),
        v_smem=gpu.SMEM((stages, bk, d), dtype, transforms=t),
        q_bar=gpu.Barrier(num_barriers=COMPUTE_WGS),
        k_bar=gpu.Barrier(num_barriers=stages),
        v_bar=gpu.Barrier(num_barriers=stages),
        k_free=gpu.Barrier(num_arrivals=COMPUTE_WGS, num_barriers=stages),
        v_free=gpu.Barrier(num_arrivals=COMPUTE_WGS, num_barriers=stages),
        turn=gpu.Barrier(num_arrivals=COMPUTE_WGS, num_barriers=1),
        collective_axes="wg",
    )


def _body(q_gmem, k_gmem, v_gmem, o_gmem, *, q_smem, k_smem, v_smem, q_bar, k_bar, v_bar, k_free, v_free,
          turn, bk, stages, causal, scale):
    gpu = ms.plgpu()
    wg = lax.axis_index("wg")
    head, qblock = lax.axis_index("head"), lax.axis_index("qblock")
    seq, d = q_gmem.shape[1], q_gmem.shape[2]
    if causal:  # longest rows first; the CTA's tiles reach the diagonal of its last 64 rows
        qblock = seq // BLOCK_Q - 1 - qblock
        cta_steps = qblock * COMPUTE_WGS + COMPUTE_WGS
    else:
        cta_steps = jnp.int32(seq // bk)

    def cross():  # both compute warpgroups meet here (the ping-pong's turns)
        gpu.barrier_arrive(turn.at[0])
        gpu.barrier_wait(turn.at[0])

    def slot_of(j):
        return lax.rem(j, jnp.int32(stages))

    @pl.when(wg < COMPUTE_WGS)
    def _compute():
        gpu.set_max_registers(COMPUTE_REGISTERS, action="increase")
        q_tile = q_smem.at[wg]
        rows = pl.ds(qblock * BLOCK_Q + wg * ma.BLOCK_Q, ma.BLOCK_Q)
        gpu.copy_gmem_to_smem(q_gmem.at[head, rows], q_tile, q_bar.at[wg])
        steps = qblock * COMPUTE_WGS + wg + 1 if causal else cta_steps
        lay = gpu.Layout.WGMMA
        gpu.barrier_wait(q_bar.at[wg])
        pl.when(wg == 1)(cross)

        def step(j, carry, masked=False):
            acc, m, l = carry
            slot = slot_of(j)
            gpu.barrier_wait(k_bar.at[slot])

            def qk(acc_ref):
                gpu.wgmma(acc_ref, q_tile, k_smem.at[slot].transpose((1, 0)))
                cross()
                return acc_ref[...]

            s = pl.run_scoped(qk, gpu.ACC((ma.BLOCK_Q, bk), jnp.float32)) * scale
            gpu.commit_smem()  # every warp's wgmma has read the slot before the warpgroup frees it
            gpu.barrier_arrive(k_free.at[slot])
            if masked:  # the diagonal tile (bk == 64): key c visible to row r iff c <= r
                r = gpu.layout_cast(lax.broadcasted_iota(jnp.int32, s.shape, 0), lay)
                c = gpu.layout_cast(lax.broadcasted_iota(jnp.int32, s.shape, 1), lay)
                s = jnp.where(c <= r, s, -jnp.inf)
            m_new = jnp.maximum(m, jnp.max(s, axis=1))
            alpha = jnp.exp2(m - m_new)
            p = jnp.exp2(s - ma.spread(m_new, s.shape))
            l = l * alpha + jnp.sum(p, axis=1)
            p_hi, p_lo = ma.split16(p, q_tile.dtype)
            gpu.barrier_arrive(turn.at[0])  # softmax done: the other warpgroup's turn
            gpu.barrier_wait(v_bar.at[slot])
            gpu.barrier_wait(turn.at[0])

            acc = ma.accumulate(acc * ma.spread(alpha, acc.shape),
                                ((p_hi, v_smem.at[slot]), (p_lo, v_smem.at[slot])))
            gpu.commit_smem()
            gpu.barrier_arrive(v_free.at[slot])
            return acc, m_new, l

        carry = (gpu.layout_cast(jnp.zeros((ma.BLOCK_Q, d), jnp.float32), lay),
                 gpu.layout_cast(jnp.full((ma.BLOCK_Q,), -jnp.inf, jnp.float32), lay.reduce(1)),
                 gpu.layout_cast(jnp.zeros((ma.BLOCK_Q,), jnp.float32), lay.reduce(1)))
        if causal:
            carry = lax.fori_loop(0, steps - 1, step, carry)
            acc, _, l = step(steps - 1, carry, masked=True)

            @pl.loop(steps, cta_steps)
            def _skip(j):  # warpgroup 0's missing tile: free its slots, keep the turns in step
                slot = slot_of(j)
                gpu.barrier_arrive(k_free.at[slot])
                gpu.barrier_arrive(v_free.at[slot])
                cross()
                cross()
        else:
            acc, _, l = lax.fori_loop(0, steps, step, carry)
        pl.when(wg == 0)(cross)
        q_tile[...] = (acc * ma.spread(1.0 / l, acc.shape)).astype(q_tile.dtype)
        gpu.commit_smem()
        gpu.copy_smem_to_gmem(q_tile, o_gmem.at[head, rows])
        gpu.wait_smem_to_gmem(0)

    @pl.when(wg == COMPUTE_WGS)
    def _memory():
        gpu.set_max_registers(MEMORY_REGISTERS, action="decrease")

        def load(gmem, smem, landed, j, slot):
            gpu.copy_gmem_to_smem(gmem.at[head, pl.ds(j * bk, bk)], smem.at[slot], landed.at[slot])

        for i in range(stages):
            @pl.when(i < cta_steps)
            def _():
                load(k_gmem, k_smem, k_bar, i, i)
                load(v_gmem, v_smem, v_bar, i, i)

        @pl.loop(0, jnp.maximum(cta_steps - stages, 0))
        def _refill(j):
            slot = slot_of(j)
            gpu.barrier_wait(k_free.at[slot])  # k first: the next q @ k^T needs it sooner
            load(k_gmem, k_smem, k_bar, j + stages, slot)
            gpu.barrier_wait(v_free.at[slot])
            load(v_gmem, v_smem, v_bar, j + stages, slot)
