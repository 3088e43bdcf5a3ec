"""The key splits' merge of kernels/mosaic_attention.py's `attention`: each split's CTA wrote
its unnormalised float32 accumulator and its rows' running max and exp-sum (each row's value
repeated over STAT_COLS columns); `merge_splits` rescales the parts to their common row max,
sums and normalises them in one `plgpu.kernel` over (head, 64-row block). The row statistics
come in by TMA first; the accumulators stream through two SMEM slots. One warpgroup: the CPU
interpreter runs it. Not a task.
"""

from __future__ import annotations

import functools

import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from pallasbench.kernels import mosaic_attention as ma
from pallasbench.kernels import mosaic_stream as ms


def merge_splits(acc, m, l, dtype, *, name: str, interpret=ms.AUTO):
    """The key splits' parts ((G, splits, S, D) accumulators, (G, splits, S, ma.STAT_COLS) row max
    and exp-sum) rescaled to their common row max, summed and normalised: (G, S, D) of `dtype`.
    A plgpu.kernel over (head, 64-row block), the parts brought in by TMA."""
    gpu = ms.plgpu()
    g, splits, seq, d = acc.shape
    f32 = jnp.float32
    slots = min(2, splits)  # accumulators stream through two SMEM slots
    rows = ma.BLOCK_Q
    ms.check_smem(name, rows * (slots * d + 2 * splits * ma.STAT_COLS) * 4 + rows * d * jnp.dtype(dtype).itemsize,
                  f"merging {splits} key splits")
    scratch = [gpu.SMEM((slots, ma.BLOCK_Q, d), f32, transforms=ma.transforms(d, f32)),
               gpu.SMEM((2, splits, ma.BLOCK_Q, ma.STAT_COLS), f32, transforms=ma.transforms(ma.STAT_COLS, f32)),
               gpu.SMEM((ma.BLOCK_Q, d), dtype, transforms=ma.transforms(d, dtype))]
    scratch += [gpu.Barrier(num_barriers=slots), gpu.Barrier(num_barriers=splits), gpu.Barrier(num_barriers=splits)]
    body = functools.partial(_merge_kernel, interpreting=ms.interpret_for(interpret) is not None)
    return ma.launch(body, (acc, m, l), ms.struct((g, seq, d), dtype), (g, seq // ma.BLOCK_Q), ("head", "qblock"),
                  scratch, f"{name}_merge", interpret)


def _merge_kernel(acc_gmem, m_gmem, l_gmem, o_gmem, acc_smem, stat_smem, o_smem, acc_bar, m_bar, l_bar, *,
                  interpreting):
    gpu = ms.plgpu()
    head, rows = lax.axis_index("head"), pl.ds(lax.axis_index("qblock") * ma.BLOCK_Q, ma.BLOCK_Q)
    splits, slots = acc_gmem.shape[1], acc_smem.shape[0]
    load = functools.partial(ma.load_wgmma, interpreting=interpreting)

    def load_acc(s):
        gpu.copy_gmem_to_smem(acc_gmem.at[head, s, rows], acc_smem.at[s % slots], acc_bar.at[s % slots])

    for s in range(splits):
        if s < slots:
            load_acc(s)
        gpu.copy_gmem_to_smem(m_gmem.at[head, s, rows], stat_smem.at[0, s], m_bar.at[s])
        gpu.copy_gmem_to_smem(l_gmem.at[head, s, rows], stat_smem.at[1, s], l_bar.at[s])
    m, l = [], []
    for s in range(splits):
        gpu.barrier_wait(m_bar.at[s])
        gpu.barrier_wait(l_bar.at[s])
        m.append(jnp.max(load(stat_smem.at[0, s]), axis=1))
        l.append(jnp.max(load(stat_smem.at[1, s]), axis=1))
    top = functools.reduce(jnp.maximum, m)  # every split saw keys: each m[s] is finite
    w = [jnp.exp2(ms_ - top) for ms_ in m]
    inv = 1.0 / functools.reduce(jnp.add, [ls * ws for ls, ws in zip(l, w)])
    out = None
    for s in range(splits):
        gpu.barrier_wait(acc_bar.at[s % slots])
        part = load(acc_smem.at[s % slots]) * ma.spread(w[s] * inv, (ma.BLOCK_Q, acc_smem.shape[2]))
        out = part if out is None else out + part
        if s + slots < splits:  # every thread has read the slot (commit_smem's barrier): refill it
            gpu.commit_smem()
            load_acc(s + slots)
    o_smem[...] = out.astype(o_smem.dtype)
    gpu.commit_smem()
    gpu.copy_smem_to_gmem(o_smem, o_gmem.at[head, rows])
    gpu.wait_smem_to_gmem(0)
