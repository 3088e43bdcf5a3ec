"""flash_attention: softmax(q @ k^T / sqrt(d)) @ v for one head, FlashAttention-2 style.

One program per block of 64-128 queries; it walks (bk, d) key/value tiles with lax.fori_loop,
keeping an f32 running max, exp-sum and output accumulator (online softmax), so the (S, S)
score matrix never exists outside registers. k and v are raw pl.ANY refs the loop reads tile
by tile. Dots use TF32 tensor cores (Triton's default f32 precision; q and p rounded to
nearest TF32 first, see pallasbench.kernels.online_attention): USES_TF32 = True.
At bfloat16/float16, q, k, v and p go to the 16-bit tensor cores (scores scaled after the dot),
with float32 accumulators and softmax statistics; the output is rounded once on store.
"""

import functools
import math

import jax
from jax.experimental import pallas as pl

from pallasbench import task as tl
from pallasbench.kernels import online_attention as ac
from pallasbench.task import stress

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


def kernel(q, k, v):
    seq, d = q.shape
    dp = ac.padded_head_dim(d)
    q, k, v = (ac.pad_last(t, dp) for t in (q, k, v))
    bq, bk, warps = ac.blocks(seq, dp)
    out = pl.pallas_call(
        functools.partial(_body, bk=bk, scale=ac.LOG2E / math.sqrt(d)),
        out_shape=jax.ShapeDtypeStruct((seq, dp), q.dtype),
        grid=(seq // bq,),
        in_specs=[pl.BlockSpec((bq, dp), lambda i: (i, 0)),
                  pl.BlockSpec(memory_space=pl.ANY),
                  pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec((bq, dp), lambda i: (i, 0)),
        compiler_params=tl.triton_params(num_warps=warps, num_stages=ac.NUM_STAGES),
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
