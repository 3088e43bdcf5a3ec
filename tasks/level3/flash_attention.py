"""flash_attention: softmax(q @ k^T / sqrt(d)) @ v, one head, tiled online softmax: never an (S, S) array.

An attention-family task (pallasbench/task/families/attention.py: inputs, stress cases, byte
model; kernels/online_attention.py: the online softmax, TF32 and 16-bit dots). One program per
block of 64-128 queries walks (bk, d) key/value tiles with ac.flash_loop; k and v are raw pl.ANY
refs the loop reads tile by tile.

Tuning (pallasbench.task.tuning, bench/variants/attention.py): "bq", "bk", "num_warps",
"num_stages" replace online_attention.blocks' choices; "splits" > 1 splits the key sequence
too: grid (query block, split), each program writes its unnormalised (acc, max, exp-sum) in
float32 and a second pallas_call rescales the splits to the common row max and normalises.
Default: one split.

Mosaic GPU (the preferred backend, kernels/mosaic_attention.py `attention`): a plgpu.kernel of
64 query rows a CTA (one warpgroup), k/v tiles through a TMA ring in SMEM, both dots on wgmma
(float32: TF32 q @ k^T, p @ v as three bfloat16 wgmmas on hi/lo splits of p and v), the online
softmax in registers; the keys split over several CTAs a query block (8 at MEDIUM) and a second
kernel merging the splits (mosaic_attention_merge.py), as one head has too few query blocks for
the SMs.
"""

import functools
import math

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

from pallasbench import task as tl
from pallasbench.kernels import mosaic_attention
from pallasbench.kernels import online_attention as ac
from pallasbench.task import tuning
from pallasbench.task.families.attention import (INPUTS, ORDER_DEPENDENT, SOFTMAX_FLOPS, STRESS, USES_TF32,
                                                bytes_moved, make_inputs, stress_inputs)

NAME = "flash_attention"
LEVEL = 3
CATEGORY = "attention"
SHAPES = tl.sizes(medium={"q": (512, 64), "k": (512, 64), "v": (512, 64)},
                  small={"q": (128, 32), "k": (128, 32), "v": (128, 32)},
                  large={"q": (2048, 128), "k": (2048, 128), "v": (2048, 128)})
TOLERANCE = tl.MATMUL


def reference(q, k, v):
    return jax.nn.softmax(q @ k.T / math.sqrt(q.shape[-1]), axis=-1) @ v


def _body(q_ref, k_ref, v_ref, o_ref, *, bk, scale):
    q, score_scale = ac.queries(q_ref[...], scale)
    acc, _, l = ac.flash_loop(
        q, lambda j: (k_ref[ac.tile(j, bk), :], v_ref[ac.tile(j, bk), :]),
        0, k_ref.shape[0] // bk, ac.init(*q.shape), score_scale=score_scale)
    o_ref[...] = (acc / l[:, None]).astype(o_ref.dtype)


def _split_body(q_ref, k_ref, v_ref, acc_ref, m_ref, l_ref, *, bk, scale, tiles):
    """Key split pl.program_id(1): its `tiles` key tiles folded into an unnormalised (acc, m, l)."""
    first = pl.program_id(1) * tiles
    q, score_scale = ac.queries(q_ref[...], scale)
    acc, m, l = ac.flash_loop(
        q, lambda j: (k_ref[ac.tile(first + j, bk), :], v_ref[ac.tile(first + j, bk), :]),
        0, tiles, ac.init(*q.shape), score_scale=score_scale)
    acc_ref[...], m_ref[...], l_ref[...] = acc, m, l


def _combine_body(acc_ref, m_ref, l_ref, o_ref, *, splits):
    """Merge the splits' partial states: rescale each to the common row max, sum, normalise."""
    m = [m_ref[s, :] for s in range(splits)]
    top = functools.reduce(jnp.maximum, m)
    acc, l = 0.0, 0.0
    for s in range(splits):  # unrolled: `splits` is a handful
        w = jnp.exp2(m[s] - top)  # every split saw keys, so m[s] is finite (no causal mask)
        acc = acc + acc_ref[s, :, :] * w[:, None]
        l = l + l_ref[s, :] * w
    o_ref[...] = (acc / l[:, None]).astype(o_ref.dtype)


def _split_kernel(q, k, v, *, bq, bk, warps, stages, splits, scale):
    """Flash-decoding style: grid (query block, key split) so a short sequence still fills the
    SMs (seq/bq programs alone leave most of an H200 idle at MEDIUM), then a small second
    pallas_call combines the `splits` partial states per row."""
    seq, dp = q.shape
    tiles = seq // bk // splits
    f32 = jnp.float32
    acc, m, l = pl.pallas_call(
        functools.partial(_split_body, bk=bk, scale=scale, tiles=tiles),
        out_shape=[jax.ShapeDtypeStruct((splits, seq, dp), f32),
                   jax.ShapeDtypeStruct((splits, seq), f32), jax.ShapeDtypeStruct((splits, seq), f32)],
        grid=(seq // bq, splits),
        in_specs=[pl.BlockSpec((bq, dp), lambda i, s: (i, 0)),
                  pl.BlockSpec(memory_space=pl.ANY), pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=[pl.BlockSpec((None, bq, dp), lambda i, s: (s, i, 0)),
                   pl.BlockSpec((None, bq), lambda i, s: (s, i)),
                   pl.BlockSpec((None, bq), lambda i, s: (s, i))],
        compiler_params=tl.triton_params(num_warps=warps, num_stages=stages),
        name=f"{NAME}_split",
    )(q, k, v)
    bc = min(seq, tuning.choice(NAME, "combine_rows", 32))
    return pl.pallas_call(
        functools.partial(_combine_body, splits=splits),
        out_shape=jax.ShapeDtypeStruct((seq, dp), q.dtype),
        grid=(seq // bc,),
        in_specs=[pl.BlockSpec((splits, bc, dp), lambda i: (0, i, 0)),
                  pl.BlockSpec((splits, bc), lambda i: (0, i)),
                  pl.BlockSpec((splits, bc), lambda i: (0, i))],
        out_specs=pl.BlockSpec((bc, dp), lambda i: (i, 0)),
        compiler_params=tl.triton_params(num_warps=4, num_stages=1),
        name=f"{NAME}_combine",
    )(acc, m, l)


# Chosen on the H200 by bench/probe.py (bench/results/2026-12-03-h200-kernels/).
TUNED = tuning.Tuned(gpu="NVIDIA H200", source="bench/results/2026-12-03-h200-kernels", configs={
    "medium": {"float32": {"bq": 32, "splits": 8, "num_warps": 4}, "bfloat16": {"bq": 32, "splits": 4, "num_warps": 4}},
    "large": {"float32": {"bq": 32, "splits": 4, "num_warps": 4}, "bfloat16": {"splits": 8, "num_warps": 4, "num_stages": 3}},
})


@tuning.tuned_kernel(NAME, SHAPES, INPUTS, TUNED)
def kernel(q, k, v):
    seq, d = q.shape
    dp = ac.padded_head_dim(d)
    q, k, v = (ac.pad_last(t, dp) for t in (q, k, v))
    bq, bk, warps, stages = ac.tuned_blocks(NAME, seq, dp)
    scale = ac.LOG2E / math.sqrt(d)
    # Key splits (TUNED or a tuning run): each split at least one 16-key tile; bk shrinks to the split.
    splits = min(tuning.choice(NAME, "splits", 1), seq // 16)
    if splits > 1:
        bk = min(bk, seq // splits)
        out = _split_kernel(q, k, v, bq=bq, bk=bk, warps=warps, stages=stages, splits=splits,
                            scale=scale)
        return out[:, :d]
    out = pl.pallas_call(
        functools.partial(_body, bk=bk, scale=scale),
        out_shape=jax.ShapeDtypeStruct((seq, dp), q.dtype),
        grid=(seq // bq,),
        in_specs=[pl.BlockSpec((bq, dp), lambda i: (i, 0)),
                  pl.BlockSpec(memory_space=pl.ANY),
                  pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec((bq, dp), lambda i: (i, 0)),
        compiler_params=tl.triton_params(num_warps=warps, num_stages=stages),
        name=NAME,
    )(q, k, v)
    return out[:, :d]


def kernel_mosaic(q, k, v):
    seq, d = q.shape
    out = mosaic_attention.attention(q.reshape(1, seq, d), k.reshape(1, seq, d), v.reshape(1, seq, d),
                                     causal=False, name=NAME)
    return out.reshape(seq, d)


BACKENDS = {"mosaic_gpu": kernel_mosaic, "triton": kernel}


def flops(shapes):
    seq, d = shapes["q"]
    return 4 * seq * seq * d + SOFTMAX_FLOPS * seq * seq
