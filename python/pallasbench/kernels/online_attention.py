"""FlashAttention-2 building blocks shared by the level-3 attention tasks (not a task).

`flash_loop` is the in-kernel inner loop: for each (bk, d) key/value tile it computes the
(bq, bk) score tile with a tensor-core dot, rescales the running f32 accumulator by the change
of the running row max and adds p @ v, so no score matrix ever reaches memory. Scores are kept
in base 2 (callers pre-scale q by log2(e)/sqrt(d)) so exp2 maps to the native instruction.
Dots run at Triton's default f32 precision: TF32 tensor cores, which truncate the low mantissa
bits of f32 operands; q and p are rounded to nearest TF32 first (`round_tf32`), which keeps
the truncation from shrinking every score the same way (a systematic softmax temperature shift).

bfloat16/float16: q, k and v go to the dots as they are (the 16-bit tensor-core path) with float32
accumulation; the scores are scaled after the dot instead of q before it (`queries`), and p @ v
takes p as two terms of v's dtype (`weighted_values`). Running max, exp-sum and accumulator stay
float32.
"""

import functools
import math

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from pallasbench import task as tl
from pallasbench.task.tuning import choice

LOG2E = math.log2(math.e)
# Streaming multiprocessors of an H200: fewer than two programs per SM leaves the tail idle.
NUM_SMS = 132
# Contract the last dims of q (bq, d) and k (bk, d): q @ k^T without an explicit transpose.
_QK_DIMS = (((1,), (1,)), ((), ()))
# A `precision` for the float32 dots below: each as three TF32 tensor-core dots on hi + lo
# splits of its operands (hi*hi + hi*lo + lo*hi, ~22 mantissa bits, as Triton's tf32x3), for
# dtypes whose bound needs more than TF32 without the FMA-unit cost of Precision.HIGHEST.
SPLIT_TF32 = "split_tf32"
# Contract p's keys (bq, bk) with v's rows (bk, d).
_PV_DIMS = (((1,), (0,)), ((), ()))
# Software-pipelining depth of the k/v loads (Triton keeps NUM_STAGES copies of each tile).
NUM_STAGES = 2
# Shared memory the q tile and the buffered k/v tiles may take, of the 227 KB an H200 block
# can have: the rest is left to Triton's layout-conversion and reduction scratch.
_SMEM_BUDGET = 160 * 1024


def padded_head_dim(d: int) -> int:
    """Head dim rounded up to a power of two >= 16 (Triton's smallest dot dimension)."""
    return max(16, tl.next_pow2(d))


def pad_last(x, size: int):
    """Zero-pad the last axis to `size`: zero features add nothing to q.k and stay zero in p@v."""
    if x.shape[-1] == size:
        return x
    return jnp.pad(x, [(0, 0)] * (x.ndim - 1) + [(0, size - x.shape[-1])])


def blocks(seq: int, d: int, heads: int = 1, causal: bool = False) -> tuple[int, int, int]:
    """(bq, bk, num_warps) for a sequence of `seq` keys, padded head dim `d`, `heads` programs
    per query block.

    bq is 128 when that still gives two programs per SM (each k/v tile then feeds twice the
    queries), else 64. bk is the largest power of two (16..128) whose NUM_STAGES-buffered f32
    k and v tiles fit the shared-memory budget beside the q tile: 128 at d=64, 64 at d=128
    with bq=64, 32 at d=128 with bq=128. Causal kernels need bk <= bq so the diagonal spans
    whole key tiles. Eight warps once the accumulator passes 8K elements (64 registers per
    thread at four warps).
    """
    if seq < 16 or seq != tl.next_pow2(seq):
        raise ValueError(f"sequence length must be a power of two >= 16, got {seq}")
    bq = 128 if (seq // 128) * heads >= 2 * NUM_SMS else 64
    bq = min(bq, seq)
    key_rows = (_SMEM_BUDGET - bq * d * 4) // (NUM_STAGES * 2 * d * 4)
    bk = min(max(16, tl.prev_pow2(key_rows)), 128, seq)
    if causal:
        bk = min(bk, bq)
    return bq, bk, 8 if bq * d > 8192 else 4


def tuned_blocks(name: str, seq: int, d: int, heads: int = 1,
                 causal: bool = False) -> tuple[int, int, int, int]:
    """(bq, bk, num_warps, num_stages): `blocks` and NUM_STAGES unless a tuning run (bench/probe.py)
    sets task `name`'s "bq", "bk", "num_warps" or "num_stages". Tiles are clamped to the sequence
    (interpret-mode SMALL shapes are shorter than some variants' tiles) and, causal, bk <= bq.
    num_warps left unset follows `blocks`' rule for the chosen bq, so a default is unchanged."""
    bq, bk, _ = blocks(seq, d, heads, causal)
    bq = min(choice(name, "bq", bq), seq)
    bk = min(choice(name, "bk", bk), seq)
    if causal:
        bk = min(bk, bq)
    warps = choice(name, "num_warps", 8 if bq * d > 8192 else 4)
    return bq, bk, warps, choice(name, "num_stages", NUM_STAGES)


def round_tf32(x):
    """Round f32 to the nearest TF32 value (10 mantissa bits, ties away from zero).

    Two integer ops per element; exact values then pass the tensor cores' truncation unchanged.
    """
    bits = lax.bitcast_convert_type(x, jnp.int32)
    return lax.bitcast_convert_type((bits + 0x1000) & -0x2000, jnp.float32)


def dot_operand(x, dtype, precision=None):
    """A float32 value as a dot operand of `dtype`: cast (rounded to nearest) for
    bfloat16/float16; for float32 rounded to nearest TF32 (the tensor cores would truncate it),
    unless the dot runs at full float32 precision (lax.Precision.HIGHEST)."""
    if dtype != jnp.float32:
        return x.astype(dtype)
    return x if precision in (lax.Precision.HIGHEST, SPLIT_TF32) else round_tf32(x)


def queries(q, scale):
    """(q operand, score_scale) for flash_loop from a q tile and the base-2 score scale.

    float32: q pre-scaled (one multiply per query element, not per score) and TF32-rounded;
    the scores need no more (None). bfloat16/float16: q as it is, its scores scaled in float32
    after the dot: q * scale would be rounded to the dtype once more (at the offset stress case,
    where a query feature reaches ~8e3, bf16's rounding of q * scale moves scores by up to 4)."""
    if q.dtype == jnp.float32:
        return round_tf32(q * scale), None
    return q, scale


def dot(a, b, dims, precision=None):
    """lax.dot_general with float32 accumulation; precision SPLIT_TF32 (float32 operands): the
    three-dot split. hi and lo are TF32-exact, so the tensor cores' truncation leaves them."""
    if precision != SPLIT_TF32:
        return lax.dot_general(a, b, dims, precision=precision, preferred_element_type=jnp.float32)
    a_hi, b_hi = round_tf32(a), round_tf32(b)
    a_lo, b_lo = round_tf32(a - a_hi), round_tf32(b - b_hi)  # the differences are exact in f32
    part = functools.partial(lax.dot_general, dimension_numbers=dims, preferred_element_type=jnp.float32)
    return part(a_hi, b_hi) + (part(a_hi, b_lo) + part(a_lo, b_hi))


def weighted_values(p, v, precision=None):
    """p @ v with float32 accumulation, p (bq, bk) float32 probabilities, v a (bk, d) tile.

    float32 v: one dot, p through `dot_operand` (TF32-rounded unless precision is HIGHEST).
    bfloat16/float16 v: p = hi + lo, both of v's dtype, and two 16-bit dots (together the cost of
    one TF32 dot). p rounded once to bf16 errs by 2^-9 of each weight, and where a large v
    cancels across a row's few keys (the large stress case, v x1e3) that reached 1.1x the bf16
    bound; hi + lo carries ~16 bits of p."""
    if v.dtype == jnp.float32:
        return dot(dot_operand(p, v.dtype, precision), v, _PV_DIMS, precision)
    hi = p.astype(v.dtype)
    lo = (p - hi.astype(jnp.float32)).astype(v.dtype)  # exact difference, then one rounding
    return (jnp.dot(hi, v, preferred_element_type=jnp.float32)
            + jnp.dot(lo, v, preferred_element_type=jnp.float32))


def init(bq: int, d: int):
    """Empty running state: accumulator, row max (base 2), row exp-sum."""
    return (jnp.zeros((bq, d), jnp.float32), jnp.full((bq,), -jnp.inf, jnp.float32),
            jnp.zeros((bq,), jnp.float32))


def flash_loop(q, load_kv, lo, hi, state, mask=None, score_scale=None, precision=None):
    """Fold key tiles lo..hi-1 into `state` (from `init`).

    q, score_scale: from `queries` (base-2 scores are q.k * score_scale; q pre-scaled and
    TF32-rounded at float32, where score_scale is None). precision: of both dots (None: Triton's
    default, TF32 for float32 operands).
    load_kv(j) -> (k, v) tiles of shape (bk, d).
    mask(j, s) -> s with hidden scores set to -inf; the first tile folded must leave every row
    at least one visible key (true for causal attention walked from key 0), so the running max
    is finite before any fully hidden row appears.
    """

    def body(j, state):
        acc, m, l = state
        k, v = load_kv(j)
        s = dot(q, k, _QK_DIMS, precision)
        if score_scale is not None:
            s = s * score_scale
        if mask is not None:
            s = mask(j, s)
        m_new = jnp.maximum(m, jnp.max(s, axis=1))
        alpha = jnp.exp2(m - m_new)  # rescales what was summed under the old max
        p = jnp.exp2(s - m_new[:, None])
        l = l * alpha + jnp.sum(p, axis=1)
        pv = weighted_values(p, v, precision)
        acc = acc * alpha[:, None] + pv
        return acc, m_new, l

    return lax.fori_loop(lo, hi, body, state)


def tile(j, bk: int):
    """pl.ds of key tile j, marked aligned so Triton emits vector loads."""
    return pl.ds(pl.multiple_of(j * bk, bk), bk)


def scores(q, score_scale, k_ref, j, bk):
    """(bq, bk) base-2 scores of key tile j of k_ref (rows bk * j...), contracting d without a
    transpose; q, score_scale from `queries`. j a Python int (an unrolled loop) or traced."""
    start = j * bk if isinstance(j, int) else pl.multiple_of(j * bk, bk)  # static when unrolled
    k = k_ref[pl.ds(start, bk), :]
    s = lax.dot_general(q, k, (((1,), (1,)), ((), ())), preferred_element_type=jnp.float32)
    return s if score_scale is None else s * score_scale


def row_stats(q, score_scale, k_ref, bk, first, tiles, store=None):
    """Online row max and exp-sum (base 2) of q's scores over key tiles first..first+tiles-1
    (the softmax statistics without v: qk_softmax); store(j, s), if given, receives the j-th of
    those score tiles."""
    def step(j, carry):
        m, l = carry
        s = scores(q, score_scale, k_ref, first + j, bk)
        if store is not None:
            store(j, s)
        m_new = jnp.maximum(m, jnp.max(s, axis=1))
        return m_new, l * jnp.exp2(m - m_new) + jnp.sum(jnp.exp2(s - m_new[:, None]), axis=1)

    bq = q.shape[0]
    return lax.fori_loop(0, tiles, step, (jnp.full((bq,), -jnp.inf, jnp.float32),
                                          jnp.zeros((bq,), jnp.float32)))


# ---------------------------------------------------------------------------------------------
# Attention with its output projection fused (transformer_block)
# ---------------------------------------------------------------------------------------------

# A plain (m, k) @ (k, n) contraction.
_MATMUL_DIMS = (((1,), (0,)), ((), ()))


def attention_projection(q, k, v, x, wo, *, cols=(0, 0, 0), precision=None, name):
    """h = x + attention(q, k, v) @ wo, (seq, width) float32: each query block's attention output
    goes through the output projection and the residual add without leaving registers.

    q, k, v: (seq, dp) dot operands, q pre-scaled by the base-2 softmax scale (and, at float32,
    all three rounded to nearest TF32); or, cols != (0, 0, 0), one array holding them as its
    column blocks cols[0], cols[1], cols[2] of width dp. x: the (seq, width) residual; wo:
    (dp, width). precision: of every dot (`dot`). Tunable under `name` (pallasbench.task.tuning):
    tuned_blocks' keys, "bn_out" (the wo column tile), "out_splits" (programs per query block,
    each projecting width / out_splits columns, its attention recomputed) and "kv_splits" (the
    keys split over programs: a first pallas_call writes each split's running state, the merge
    is fused into the projection's call).
    """
    seq, width = x.shape
    dp = wo.shape[0]
    f32 = jnp.float32
    bq, bkv, warps, stages = tuned_blocks(name, seq, dp)
    # wo column tiles of <= 8K elements: two buffered tiles plus the attention output as a dot
    # operand stay within shared memory even at d_head = 256.
    bn_out = min(width, choice(name, "bn_out", min(128, max(16, 8192 // dp))))
    # out_splits programs per query block, each projecting width / out_splits columns: seq / bq
    # programs alone are 32 at LARGE (bq 16) for 132 SMs; the attention is recomputed per split.
    splits = min(choice(name, "out_splits", 1), width // bn_out)
    q_rows = pl.BlockSpec((bq, width // splits), lambda i, c: (i, c))
    params = tl.triton_params(num_warps=warps, num_stages=stages)
    any_ = pl.BlockSpec(memory_space=pl.ANY)
    # k and v whole (the loops load their tiles): the raw arrays, or their column block of qkv.
    k_all, v_all = ((any_, any_) if cols == (0, 0, 0) else
                    [pl.BlockSpec((seq, dp), lambda i, s, c=c: (0, c)) for c in cols[1:]])
    # kv_splits > 1: the keys split over that many programs per query block (a first call writes
    # each split's running state), the merge fused into the projection call below.
    kv_splits = min(choice(name, "kv_splits", 1), seq // bkv)
    if kv_splits > 1:
        part = lambda *shape: jax.ShapeDtypeStruct((kv_splits, *shape), f32)  # noqa: E731
        acc, m, l = pl.pallas_call(
            functools.partial(_split_state_body, bk=bkv, tiles=seq // bkv // kv_splits, precision=precision),
            out_shape=[part(seq, dp), part(seq), part(seq)],
            grid=(seq // bq, kv_splits),
            in_specs=[pl.BlockSpec((bq, dp), lambda i, s: (i, cols[0])), k_all, v_all],
            out_specs=[pl.BlockSpec((None, bq, dp), lambda i, s: (s, i, 0)),
                       *[pl.BlockSpec((None, bq), lambda i, s: (s, i))] * 2],
            compiler_params=params,
            name=f"{name}_attention_part",
        )(q, k, v)
        body = functools.partial(_merged_out_body, bn=bn_out, splits=kv_splits, precision=precision)
        args = (acc, m, l, x, wo)
        in_specs = [pl.BlockSpec((kv_splits, bq, dp), lambda i, c: (0, i, 0)),
                    *[pl.BlockSpec((kv_splits, bq), lambda i, c: (0, i))] * 2, q_rows, any_]
    else:
        body = functools.partial(_attention_out_body, bk=bkv, bn=bn_out, precision=precision)
        args = (q, k, v, x, wo)
        in_specs = [pl.BlockSpec((bq, dp), lambda i, c: (i, cols[0])), k_all, v_all, q_rows, any_]
    h = pl.pallas_call(
        body,
        out_shape=jax.ShapeDtypeStruct((seq, width), f32),
        grid=(seq // bq, splits),
        in_specs=in_specs,
        out_specs=q_rows,
        compiler_params=params,
        name=f"{name}_attention_out",
    )(*args)
    return h


def _attention_out_body(q_ref, k_ref, v_ref, x_ref, wo_ref, h_ref, *, bk, bn, precision):
    """Attention of bq rows, then h's columns of this program (pl.program_id(1): out_splits > 1
    gives each of the row block's programs width / out_splits columns, its attention recomputed)."""
    q = q_ref[...]
    acc, _, l = flash_loop(
        q, lambda j: (k_ref[tile(j, bk), :], v_ref[tile(j, bk), :]),
        0, k_ref.shape[0] // bk, init(*q.shape), precision=precision)
    _project_out(acc / l[:, None], x_ref, wo_ref, h_ref, bn, precision)


def _split_state_body(q_ref, k_ref, v_ref, acc_ref, m_ref, l_ref, *, bk, tiles, precision):
    """kv_splits: key split pl.program_id(1)'s unnormalised state over its `tiles` key tiles."""
    q = q_ref[...]
    first = pl.program_id(1) * tiles  # read outside the loop: interpret mode cannot lower it inside
    acc_ref[...], m_ref[...], l_ref[...] = flash_loop(
        q, lambda j: (k_ref[tile(j, bk), :], v_ref[tile(j, bk), :]),
        first, first + tiles, init(*q.shape), precision=precision)


def _merged_out_body(acc_ref, m_ref, l_ref, x_ref, wo_ref, h_ref, *, bn, splits, precision):
    """kv_splits: the splits' states rescaled to the common row max and summed, then projected."""
    m = [m_ref[i, :] for i in range(splits)]
    top = functools.reduce(jnp.maximum, m)  # every split saw keys: each m[i] is finite
    w = [jnp.exp2(mi - top) for mi in m]
    l = functools.reduce(jnp.add, [l_ref[i, :] * w[i] for i in range(splits)])
    acc = functools.reduce(jnp.add, [acc_ref[i] * w[i][:, None] for i in range(splits)])
    _project_out(acc / l[:, None], x_ref, wo_ref, h_ref, bn, precision)


def _project_out(attn, x_ref, wo_ref, h_ref, bn, precision):
    """h = x + attn @ wo over this program's h_ref columns, bn at a time."""
    attn = dot_operand(attn, jnp.float32, precision)
    chunks = h_ref.shape[1] // bn
    first = pl.program_id(1) * chunks  # read outside the loop: interpret mode cannot lower it inside

    def project(c, carry):  # h[:, c] = x[:, c] + attn @ wo[:, c], bn model columns at a time
        cols = tile(c, bn)
        residual = x_ref[:, cols].astype(jnp.float32)
        wo = wo_ref[:, tile(first + c, bn)].astype(jnp.float32)  # exact: attn is float32
        h_ref[:, cols] = residual + dot(attn, wo, _MATMUL_DIMS, precision)
        return carry

    lax.fori_loop(0, chunks, project, 0)
