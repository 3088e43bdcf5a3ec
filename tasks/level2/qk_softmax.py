"""qk_softmax: softmax(q @ k^T / sqrt(d)) over the last axis, an (N, N) probability matrix.

Each program owns bq query rows: a first fori_loop over (bk, d) key tiles keeps an online row
max and exp-sum, a second recomputes each score tile (2*N*N*d cheap FLOPs) and stores it
normalised, so the (N, N) output is written once and never re-read. Scores are base 2 (q is
pre-scaled by log2(e)/sqrt(d)) so exp2 is the native instruction. Dots use TF32 tensor cores
(USES_TF32 = True); q is rounded to nearest TF32 first, as truncation would shrink all scores.
At bfloat16/float16, q and k go to the 16-bit tensor cores as they are and the float32 scores
are scaled after the dot (online_attention.queries); probabilities are rounded once on store.
"""

import functools
import math

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from pallasbench import task as tl
from pallasbench.kernels import online_attention as ac
from pallasbench.task import stress

NAME = "qk_softmax"
LEVEL = 2
CATEGORY = "attention_component"
INPUTS = (tl.Input("q", tl.REAL), tl.Input("k", tl.REAL))
SHAPES = tl.sizes(medium={"q": (256, 64), "k": (256, 64)},
                  small={"q": (64, 32), "k": (64, 32)},
                  large={"q": (1024, 128), "k": (1024, 128)})
TOLERANCE = tl.MATMUL
USES_TF32 = True
ORDER_DEPENDENT = False
# Stress: offset shifts each score row by up to 1e3 (stress.score_offset).
STRESS = tl.stress_cases("tiny", "offset", offset_input="q",
                         large="q, k x1e3 put scores at 1e6, beyond what TF32 (or f32) resolves: the softmax "
                         "would be rounding noise; the offset case moves scores by up to 1e3 instead",
                         degenerate=tl.NO_DISCRETE_INPUT, distinct=tl.NO_DISCRETE_INPUT)

# 16 query rows per program: enough programs to spread the N*N stores over the SMs, and the
# smallest M a tensor-core dot takes. Key tiles of 8K elements (128 keys at d=64, 64 at
# d=128): double-buffered they fit shared memory, and output rows stay >= 256 bytes.
BLOCK_Q, KEY_TILE_ELEMENTS = 16, 8192
# scale, max, subtract, exp, sum, normalise
SOFTMAX_FLOPS = 6


def make_inputs(rng, shapes):
    return tl.normal(rng, shapes["q"]), tl.normal(rng, shapes["k"])


def stress_inputs(case, rng, shapes, inputs):
    if case == "offset":
        return stress.score_offset(rng, *inputs)
    return None


def reference(q, k):
    return jax.nn.softmax(q @ k.T / math.sqrt(q.shape[-1]), axis=-1)


def _body(q_ref, k_ref, o_ref, *, bk, scale):
    nk = k_ref.shape[0] // bk
    q, score_scale = ac.queries(q_ref[...], scale)
    bq = q.shape[0]

    def scores(j):  # (bq, bk) base-2 scores of key tile j, contracting d without a transpose
        k = k_ref[pl.ds(pl.multiple_of(j * bk, bk), bk), :]
        s = lax.dot_general(q, k, (((1,), (1,)), ((), ())), preferred_element_type=jnp.float32)
        return s if score_scale is None else s * score_scale

    def stats(j, carry):
        m, l = carry
        s = scores(j)
        m_new = jnp.maximum(m, jnp.max(s, axis=1))
        l = l * jnp.exp2(m - m_new) + jnp.sum(jnp.exp2(s - m_new[:, None]), axis=1)
        return m_new, l

    m, l = lax.fori_loop(0, nk, stats, (jnp.full((bq,), -jnp.inf, jnp.float32),
                                        jnp.zeros((bq,), jnp.float32)))
    inv = 1.0 / l

    def write(j, carry):
        p = jnp.exp2(scores(j) - m[:, None]) * inv[:, None]
        o_ref[:, pl.ds(pl.multiple_of(j * bk, bk), bk)] = p.astype(o_ref.dtype)
        return carry

    lax.fori_loop(0, nk, write, 0)


def kernel(q, k):
    n, d = q.shape
    dp = max(16, tl.next_pow2(d))
    bq, bk = min(BLOCK_Q, n), min(max(16, KEY_TILE_ELEMENTS // dp), 128, n)
    if n < 16 or n != tl.next_pow2(n):  # whole power-of-two tiles, >= 16 rows for the dot
        raise ValueError(f"{NAME}: N must be a power of two >= 16, got {n}")
    if dp != d:  # zero features add nothing to q.k; the dot needs power-of-two dims >= 16
        q, k = jnp.pad(q, ((0, 0), (0, dp - d))), jnp.pad(k, ((0, 0), (0, dp - d)))
    return pl.pallas_call(
        functools.partial(_body, bk=bk, scale=math.log2(math.e) / math.sqrt(d)),
        out_shape=jax.ShapeDtypeStruct((n, n), q.dtype),
        grid=(n // bq,),
        in_specs=[pl.BlockSpec((bq, dp), lambda i: (i, 0)),
                  pl.BlockSpec(memory_space=pl.ANY)],  # key tiles are loaded in the loops
        out_specs=pl.BlockSpec((bq, n), lambda i: (i, 0)),
        compiler_params=tl.triton_params(num_warps=4, num_stages=2),
        name=NAME,
    )(q, k)


def flops(shapes):
    n, d = shapes["q"]
    return 2 * n * n * d + SOFTMAX_FLOPS * n * n


def bytes_moved(shapes, itemsize=4):
    # q and k read once and the (N, N) probabilities written, floats at `itemsize` bytes (4 at
    # float32, 2 at bfloat16/float16).
    n, d = shapes["q"]
    return (2 * n * d + n * n) * itemsize
