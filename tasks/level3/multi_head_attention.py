"""multi_head_attention: per head softmax(q @ k^T / sqrt(d)) @ v, heads along axis 0.

An attention-family task (pallasbench/task/families/attention.py: inputs, stress cases, byte
model). FlashAttention-2 (kernels/online_attention.py): the grid is (head, 64-128 query block);
each program walks (bk, d) k/v tiles of its head (raw pl.ANY refs) with ac.flash_loop, keeping
float32 running max, exp-sum and output accumulator, so no (S, S) score matrix is ever
materialised.
Tuning (pallasbench.task.tuning): "bq", "bk", "num_warps", "num_stages" replace
online_attention.blocks' choices (online_attention.tuned_blocks).

Mosaic GPU (the preferred backend, kernels/mosaic_attention.py `attention`): a plgpu.kernel
over (head, 64-query block, key split), k/v tiles through a TMA ring in SMEM, both dots on wgmma
(float32: TF32 q @ k^T, p @ v as three bfloat16 wgmmas on hi/lo splits of p and v), the online
softmax in registers; a second kernel merges the key splits (mosaic_attention_merge.py: 4 at
MEDIUM, 2 at LARGE, to fill 132 SMs).
"""

import functools
import math

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

from pallasbench import task as tl
from pallasbench.task import tuning
from pallasbench.kernels import mosaic_attention
from pallasbench.kernels import online_attention as ac
from pallasbench.task.families.attention import (INPUTS, ORDER_DEPENDENT, SOFTMAX_FLOPS, STRESS, USES_TF32,
                                                bytes_moved, make_inputs, stress_inputs)

NAME = "multi_head_attention"
LEVEL = 3
CATEGORY = "attention"
SHAPES = tl.sizes(medium={n: (8, 256, 64) for n in ("q", "k", "v")},
                  small={n: (4, 64, 32) for n in ("q", "k", "v")},
                  large={n: (16, 512, 128) for n in ("q", "k", "v")})
TOLERANCE = tl.MATMUL


def reference(q, k, v):
    s = jnp.einsum("hqd,hkd->hqk", q, k) / math.sqrt(q.shape[-1])
    return jnp.einsum("hqk,hkd->hqd", jax.nn.softmax(s, axis=-1), v)


def _body(q_ref, k_ref, v_ref, o_ref, *, bk, scale):
    h = pl.program_id(0)
    q, score_scale = ac.queries(q_ref[...], scale)
    acc, _, l = ac.flash_loop(
        q, lambda j: (k_ref[h, ac.tile(j, bk), :], v_ref[h, ac.tile(j, bk), :]),
        0, k_ref.shape[1] // bk, ac.init(*q.shape), score_scale=score_scale)
    o_ref[...] = (acc / l[:, None]).astype(o_ref.dtype)


# Chosen on the H200 by bench/probe.py (bench/results/2026-12-03-h200-kernels/).
TUNED = tuning.Tuned(gpu="NVIDIA H200", source="bench/results/2026-12-03-h200-kernels", configs={
    "medium": {"float32": {"bq": 16, "num_warps": 4}, "bfloat16": {"bq": 16, "num_warps": 4}},
    "large": {"float32": {"bq": 32, "num_warps": 4}, "bfloat16": {"bq": 64, "num_warps": 4, "num_stages": 3}},
})


@tuning.tuned_kernel(NAME, SHAPES, INPUTS, TUNED)
def kernel(q, k, v):
    heads, seq, d = q.shape
    dp = ac.padded_head_dim(d)
    q, k, v = (ac.pad_last(t, dp) for t in (q, k, v))
    bq, bk, warps, stages = ac.tuned_blocks(NAME, seq, dp, heads)
    q_tile = pl.BlockSpec((None, bq, dp), lambda h, i: (h, i, 0))
    out = pl.pallas_call(
        functools.partial(_body, bk=bk, scale=ac.LOG2E / math.sqrt(d)),
        out_shape=jax.ShapeDtypeStruct((heads, seq, dp), q.dtype),
        grid=(heads, seq // bq),
        in_specs=[q_tile, pl.BlockSpec(memory_space=pl.ANY), pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=q_tile,
        compiler_params=tl.triton_params(num_warps=warps, num_stages=stages),
        name=NAME,
    )(q, k, v)
    return out[..., :d]


def kernel_mosaic(q, k, v):
    return mosaic_attention.attention(q, k, v, causal=False, name=NAME)


BACKENDS = {"mosaic_gpu": kernel_mosaic, "triton": kernel}


def flops(shapes):
    heads, seq, d = shapes["q"]
    return heads * (4 * seq * seq * d + SOFTMAX_FLOPS * seq * seq)
