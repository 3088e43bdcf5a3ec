"""multi_head_attention: per head softmax(q @ k^T / sqrt(d)) @ v, heads along axis 0.

FlashAttention-2: the grid is (head, 64-128 query block); each program walks (bk, d) k/v tiles
of its head (raw pl.ANY refs) with lax.fori_loop, keeping f32 running max, exp-sum and output
accumulator, so no (S, S) score matrix is ever materialised. Dots use TF32 tensor cores
(USES_TF32 = True), q and p rounded to nearest TF32 first (see pallasbench.kernels.online_attention).
At bfloat16/float16, q, k, v and p go to the 16-bit tensor cores (scores scaled after the dot),
with float32 accumulators and softmax statistics; the output is rounded once on store.
Tuning (pallasbench.task.tuning): "bq", "bk", "num_warps", "num_stages" replace
online_attention.blocks' choices (online_attention.tuned_blocks).

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
from pallasbench.task import tuning
from pallasbench.kernels import online_attention as ac
from pallasbench.task import stress

NAME = "multi_head_attention"
LEVEL = 3
CATEGORY = "attention"
INPUTS = (tl.Input("q", tl.REAL), tl.Input("k", tl.REAL), tl.Input("v", tl.REAL))
SHAPES = tl.sizes(medium={n: (8, 256, 64) for n in ("q", "k", "v")},
                  small={n: (4, 64, 32) for n in ("q", "k", "v")},
                  large={n: (16, 512, 128) for n in ("q", "k", "v")})
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
TUNED = tuning.Tuned(
    gpu="NVIDIA H200", source="bench/results/2026-12-03-h200-kernels",
    configs={
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


def flops(shapes):
    heads, seq, d = shapes["q"]
    return heads * (4 * seq * seq * d + SOFTMAX_FLOPS * seq * seq)


def bytes_moved(shapes, itemsize=4):
    # q, k and v read once and the output written once, floats at `itemsize` bytes (4 at
    # float32, 2 at bfloat16/float16).
    heads, seq, d = shapes["q"]
    return 4 * heads * seq * d * itemsize
