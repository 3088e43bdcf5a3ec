"""attention_forward: causal scaled dot-product attention, q, k, v (B, H, S, D).

An attention-family task (pallasbench/task/families/attention.py: inputs, stress cases, byte
model). FlashAttention-2 (kernels/online_attention.py): one program per (batch*head, 64-128 query
block) walks (bk, D) k/v tiles with ac.flash_loop, keeping float32 running max, exp-sum and
accumulator; no (S, S) array exists. The loop bound follows the query block: tiles left of the
diagonal run unmasked, the diagonal ones masked, later ones never; the longest query blocks
launch first.

float32, sequences of PRECISE_MIN_SEQ keys or more: a second pallas_call runs the query blocks
of the first PRECISE_ROWS rows with both dots as three TF32 dots on hi + lo splits
(online_attention.dot, SPLIT_TF32). A causal row r averages only r + 1 values of v, so TF32's 11
bits on q, k, p and v do not average out there: at the `large` stress case (v x1e3, |v| up to
~5e3) a row of a few keys whose output cancels errs by up to ~1.5 against a bound of 0.68 (the
H200's LARGE float32 failure, 2026-12-03 call 4). The evidence is bench/tf32_attention_error.py
(output in bench/results/2026-12-03-cpu/): at LARGE the plain TF32 path reaches 1.02-1.35x of
the bound in rows < 128 (0.46-0.57x after); both dots split there bring those rows to ~0; p @ v
split alone leaves 0.89-0.92x (the score errors, times |v|, remain). Those blocks hold the
fewest keys and launch last, so the cost is small; later rows are unchanged. Shorter sequences
keep one plain call: row r's error does not depend on S, but the bound's scale (the output's
rms) is larger where a larger share of rows sees few keys: 122.8 at MEDIUM (S = 1024) against
68.3 at LARGE, and there the simulation puts the plain path at 0.53x (call 3's MEDIUM seed).
bfloat16/float16: one call, as before.
Tuning (pallasbench.task.tuning): "bq", "bk", "num_warps", "num_stages" replace
online_attention.blocks' choices (online_attention.tuned_blocks); "precise_rows" (float32 only)
replaces PRECISE_ROWS at any length (0: every block on plain TF32 dots, one call).

Mosaic GPU (the preferred backend, kernels/mosaic_attention.py `attention`, causal): one
plgpu.kernel over (batch*head, query block), the longest query blocks first; k/v tiles of 64
keys through a TMA ring in SMEM, tiles left of the diagonal unmasked, the diagonal one masked;
both dots on wgmma, the online softmax in registers, the output stored by TMA. bfloat16 at
MEDIUM and LARGE: FlashAttention-3's schedule (mosaic_attention_ws.py: two compute warpgroups
in ping-pong, 128 rows a CTA, and a TMA warpgroup; GPU only). float32: q @ k^T
on TF32 wgmma (q rounded to nearest TF32 once), p @ v as three bfloat16 wgmmas on hi/lo splits
of p and v (~16 bits, where the Triton kernel needs its split-TF32 second call for the first
rows); the score errors of the first rows remain TF32's (0.89-0.92x of the bound at LARGE in
bench/tf32_attention_error.py with p @ v split alone): to watch on the GPU.
"""

import functools
import math

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from pallasbench import task as tl
from pallasbench.task import tuning
from pallasbench.kernels import mosaic_attention
from pallasbench.kernels import online_attention as ac
from pallasbench.task.families.attention import (INPUTS, ORDER_DEPENDENT, SOFTMAX_FLOPS, STRESS, USES_TF32,
                                                bytes_moved, make_inputs, stress_inputs)

NAME = "attention_forward"
LEVEL = 3
CATEGORY = "attention"
SHAPES = tl.sizes(medium={n: (1, 12, 1024, 128) for n in ("q", "k", "v")},
                  small={n: (1, 2, 128, 64) for n in ("q", "k", "v")},
                  large={n: (4, 16, 4096, 128) for n in ("q", "k", "v")})
TOLERANCE = tl.MATMUL

# float32 query rows below PRECISE_ROWS run on split-TF32 dots (see the module docstring), rounded
# up to whole query blocks (one block at bq 128), in sequences of at least PRECISE_MIN_SEQ keys.
PRECISE_ROWS, PRECISE_MIN_SEQ = 128, 2048


def reference(q, k, v):
    seq = q.shape[2]
    s = jnp.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(q.shape[-1])
    causal = jnp.tril(jnp.ones((seq, seq), dtype=bool))
    p = jax.nn.softmax(jnp.where(causal, s, -jnp.inf), axis=-1)
    return jnp.einsum("bhqk,bhkd->bhqd", p, v)


def _body(q_ref, k_ref, v_ref, *refs, bk, scale, first_block, precision):
    o_ref = refs[-1]  # refs: (output,) or (earlier output aliased to it, output)
    bh = pl.program_id(0)
    bq = q_ref.shape[0]
    qi = first_block + pl.num_programs(1) - 1 - pl.program_id(1)  # longest rows first
    if precision == ac.SPLIT_TF32:  # q * scale split in the dot, not pre-rounded
        q, score_scale = q_ref[...] * scale, None
    else:
        q, score_scale = ac.queries(q_ref[...], scale)

    def load_kv(j):
        return k_ref[bh, ac.tile(j, bk), :], v_ref[bh, ac.tile(j, bk), :]

    def causal(j, s):
        rows = qi * bq + lax.broadcasted_iota(jnp.int32, s.shape, 0)
        cols = j * bk + lax.broadcasted_iota(jnp.int32, s.shape, 1)
        return jnp.where(cols <= rows, s, -jnp.inf)

    per_block = bq // bk  # key tiles per query block (bk <= bq)
    first_diag = qi * per_block  # tiles before it lie wholly left of the diagonal
    state = ac.flash_loop(q, load_kv, 0, first_diag, ac.init(*q.shape), score_scale=score_scale,
                          precision=precision)
    acc, _, l = ac.flash_loop(q, load_kv, first_diag, first_diag + per_block, state, causal,
                              score_scale=score_scale, precision=precision)
    o_ref[...] = (acc / l[:, None]).astype(o_ref.dtype)


# Chosen on the H200 by bench/probe.py (bench/results/2026-12-03-h200-kernels/).
TUNED = tuning.Tuned(gpu="NVIDIA H200", source="bench/results/2026-12-03-h200-kernels", configs={
    "medium": {"float32": {"bq": 32, "bk": 32, "num_warps": 4}, "bfloat16": {"bq": 64, "bk": 64, "num_stages": 3}},
    # large float32: bq 128, bk 64, 8 warps ran 2.30x in the probe but failed the harness's large
    # stress case (3 of 33554432 elements, call 3); the heuristic's tiles fail it too (1 element,
    # call 4): TF32 in rows < 128, not the tiling (bench/tf32_attention_error.py), now run on
    # split dots (PRECISE_ROWS). To re-probe with it (variant bq128_bk64_w8_precise) before shipping.
    "large": {"bfloat16": {"bq": 64, "bk": 64, "num_stages": 3}},
})


@tuning.tuned_kernel(NAME, SHAPES, INPUTS, TUNED)
def kernel(q, k, v):
    batch, heads, seq, d = q.shape
    dp = ac.padded_head_dim(d)
    # (B, H, S, D) -> (B*H, S, Dp): one leading program axis, head dim a power of two.
    q, k, v = (ac.pad_last(t.reshape(batch * heads, seq, d), dp) for t in (q, k, v))
    bq, bk, warps, stages = ac.tuned_blocks(NAME, seq, dp, batch * heads, causal=True)
    nq = seq // bq
    # float32: the first query blocks (rows < precise_rows) in a second pallas_call with split-TF32
    # dots (see the module docstring); the first call's grid leaves them out.
    precise = 0
    if q.dtype == jnp.float32:
        rows = tuning.choice(NAME, "precise_rows", PRECISE_ROWS if seq >= PRECISE_MIN_SEQ else 0)
        precise = -(-rows // bq)
    precise = min(precise, nq)

    def call(first, count, precision, earlier=()):
        tile = pl.BlockSpec((None, bq, dp), lambda bh, i: (bh, first + count - 1 - i, 0))
        return pl.pallas_call(
            functools.partial(_body, bk=bk, scale=ac.LOG2E / math.sqrt(d), first_block=first,
                              precision=precision),
            out_shape=jax.ShapeDtypeStruct((batch * heads, seq, dp), q.dtype),
            grid=(batch * heads, count),
            in_specs=[tile] + [pl.BlockSpec(memory_space=pl.ANY)] * (2 + len(earlier)),
            out_specs=tile,
            input_output_aliases={3: 0} if earlier else {},  # blocks it does not write keep earlier's
            compiler_params=tl.triton_params(num_warps=warps, num_stages=stages),
            name=NAME if precision is None else f"{NAME}_precise",
        )(q, k, v, *earlier)

    out = call(precise, nq - precise, None) if precise < nq else None
    if precise:
        out = call(0, precise, ac.SPLIT_TF32, () if out is None else (out,))
    return out[..., :d].reshape(batch, heads, seq, d)


def kernel_mosaic(q, k, v):
    batch, heads, seq, d = q.shape
    q, k, v = (t.reshape(batch * heads, seq, d) for t in (q, k, v))
    out = mosaic_attention.attention(q, k, v, causal=True, name=NAME)
    return out.reshape(batch, heads, seq, d)


BACKENDS = {"mosaic_gpu": kernel_mosaic, "triton": kernel}


def flops(shapes):
    batch, heads, seq, d = shapes["q"]
    visible = seq * (seq + 1) // 2  # causal (query, key) pairs per head
    return batch * heads * (4 * visible * d + SOFTMAX_FLOPS * visible)
