"""flash_attention: softmax(q @ k^T / sqrt(d)) @ v, one head, tiled online softmax: never an (S, S) array.

One program per block of 64-128 queries; it walks (bk, d) key/value tiles with lax.fori_loop,
keeping an f32 running max, exp-sum and output accumulator (online softmax), so the (S, S)
score matrix never exists outside registers. k and v are raw pl.ANY refs the loop reads tile
by tile. Dots use TF32 tensor cores (Triton's default f32 precision; q and p rounded to
nearest TF32 first, see pallasbench.kernels.online_attention): USES_TF32 = True.
At bfloat16/float16, q, k, v and p go to the 16-bit tensor cores (scores scaled after the dot),
with float32 accumulators and softmax statistics; the output is rounded once on store.

Tuning (pallasbench.task.tuning, bench/variants/attention.py): "bq", "bk", "num_warps",
"num_stages" replace online_attention.blocks' choices; "splits" > 1 splits the key sequence
too: grid (query block, split), each program writes its unnormalised (acc, max, exp-sum) in
float32 and a second pallas_call rescales the splits to the common row max and normalises.
Default: one split.

Shipped configuration: the TUNED table (chosen on the H200 by bench/probe.py,
bench/results/2026-12-03-h200-kernels/) sets these choices at the task's MEDIUM and LARGE shapes
per dtype (float16 takes bfloat16's); any other shape takes the defaults above. Each record's
kernel_config says which values ran.
"""

import functools
import math

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

from pallasbench import task as tl
from pallasbench.kernels import online_attention as ac
from pallasbench.task import stress, tuning

NAME = "flash_attention"
LEVEL = 3
CATEGORY = "attention"
INPUTS = (tl.Input("q", tl.REAL), tl.Input("k", tl.REAL), tl.Input("v", tl.REAL))
SHAPES = tl.sizes(medium={"q": (512, 64), "k": (512, 64), "v": (512, 64)},
                  small={"q": (128, 32), "k": (128, 32), "v": (128, 32)},
                  large={"q": (2048, 128), "k": (2048, 128), "v": (2048, 128)})
TOLERANCE = tl.MATMUL
USES_TF32 = True
ORDER_DEPENDENT = False
# Stress: large scales v only: q, k x1e3 put scores at 1e6, beyond what TF32 (or f32)
# resolves, so the softmax would be rounding noise. offset shifts each score row by up to 1e3
# (stress.score_offset), which a kernel that skips the row max overflows on.
STRESS = tl.stress_cases("tiny", "large", "offset", offset_input="q", keep=("q", "k"), large_factor=1e3,
                         degenerate=tl.NO_DISCRETE_INPUT, distinct=tl.NO_DISCRETE_INPUT)

# Per score: scale, max, subtract, exp, sum.
SOFTMAX_FLOPS = 5


def make_inputs(rng, shapes):
    return tuple(tl.normal(rng, shapes[name]) for name in ("q", "k", "v"))


def stress_inputs(case, rng, shapes, inputs):
    if case == "offset":
        return stress.score_offset(rng, *inputs)
    return None


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
TUNED = tuning.Tuned(
    gpu="NVIDIA H200", source="bench/results/2026-12-03-h200-kernels",
    configs={
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


def flops(shapes):
    seq, d = shapes["q"]
    return 4 * seq * seq * d + SOFTMAX_FLOPS * seq * seq


def bytes_moved(shapes, itemsize=4):
    # q, k and v read once and the output written once, floats at `itemsize` bytes (4 at
    # float32, 2 at bfloat16/float16).
    seq, d = shapes["q"]
    return 4 * seq * d * itemsize
