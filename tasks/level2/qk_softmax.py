"""qk_softmax: softmax(q @ k^T / sqrt(d)) over the last axis, an (N, N) probability matrix.

Each program owns bq query rows: a first fori_loop over (bk, d) key tiles keeps an online row
max and exp-sum, a second recomputes each score tile (2*N*N*d cheap FLOPs) and stores it
normalised, so the (N, N) output is written once and never re-read. Scores are base 2 (q is
pre-scaled by log2(e)/sqrt(d)) so exp2 is the native instruction. Dots use TF32 tensor cores
(USES_TF32 = True); q is rounded to nearest TF32 first, as truncation would shrink all scores.
At bfloat16/float16, q and k go to the 16-bit tensor cores as they are and the float32 scores
are scaled after the dot (online_attention.queries); probabilities are rounded once on store.
The Mosaic GPU kernel (preferred backend): kernels/mosaic_qk_softmax.py `probabilities`.

Tuning (pallasbench.task.tuning, bench/variants/attention.py): "bq", "bk", "num_warps",
"num_stages"; "mode" (default: "two_pass", the above) may be "one_pass": the row block's
score tiles kept live as an unrolled list (one dot per tile, no recompute), or "split": a first
pallas_call writes per-(row, key split) max and exp-sum over a (query block, "splits") grid, a
second one owns a ("tile_q", "tile_k") output tile, merges the few partial stats of its rows and
stores exp2(s - M) / L, so the N*N store runs over N*N / tile programs. In "split" mode
"store_scores" makes the first call also write its float32 scores, which the second reads instead
of recomputing q.k (XLA's gemm + softmax split); "stats_bq", "stats_warps" tile the first call.
"mode" "mosaic" (Hopper only) is XLA's split on faster kernels: the Mosaic GPU matmul
(kernels/mosaic_matmul.py) writes the float32 base-2 scores, k being already the K-major operand
TF32 wgmma reads (no packing pass) and the scale applied in its epilogue, then a row pass
(kernels/rowwise.map_rows) turns each row into probabilities with exp2. wgmma truncates float32
q and k to TF32 where the Triton modes round q to nearest; the scores' relative error stays
within 2^-10, far inside the matmul class's bound. Tunables "mosaic_bm", "mosaic_width",
"mosaic_stages" (tiled_matmul.mosaic) tile the matmul; "rows_block_bytes" and
"rows_num_warps" set the row pass's (kernels.rowwise) launch.

Shipped configuration: the TUNED table (chosen on the H200 by bench/probe.py,
bench/results/2026-12-03-h200-kernels/; LARGE from 2026-12-04-h200-3/) sets these
choices at the task's MEDIUM and LARGE shapes per dtype (float16 takes bfloat16's); any other
shape takes the defaults above. Each record's kernel_config says which values ran.
"""

import functools
import math

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from pallasbench import task as tl
from pallasbench.kernels import mosaic_matmul, mosaic_qk_softmax, rowwise
from pallasbench.kernels import online_attention as ac
from pallasbench.kernels.fused_matmul_mosaic import mosaic_config
from pallasbench.task import tuning
from pallasbench.task.families.attention import ORDER_DEPENDENT, USES_TF32, stress_inputs

NAME = "qk_softmax"
LEVEL = 2
CATEGORY = "attention_component"
INPUTS = (tl.Input("q", tl.REAL), tl.Input("k", tl.REAL))
SHAPES = tl.sizes(medium={"q": (256, 64), "k": (256, 64)},
                  small={"q": (64, 32), "k": (64, 32)},
                  large={"q": (1024, 128), "k": (1024, 128)})
TOLERANCE = tl.MATMUL
STRESS = tl.stress_cases("tiny", "offset", offset_input="q",
                         large="q, k x1e3 put scores at 1e6, beyond what TF32 (or f32) resolves: the softmax "
                         "would be rounding noise; the offset case moves scores by up to 1e3 instead",
                         degenerate=tl.NO_DISCRETE_INPUT, distinct=tl.NO_DISCRETE_INPUT)

# 16 query rows per program: enough programs to spread the N*N stores over the SMs, the smallest
# M of a dot. Key tiles of 8K elements: double-buffered they fit SMEM, output rows >= 256 bytes.
BLOCK_Q, KEY_TILE_ELEMENTS = 16, 8192
# scale, max, subtract, exp, sum, normalise
SOFTMAX_FLOPS = 6


def make_inputs(rng, shapes):
    return tl.normal(rng, shapes["q"]), tl.normal(rng, shapes["k"])


def reference(q, k):
    return jax.nn.softmax(q @ k.T / math.sqrt(q.shape[-1]), axis=-1)


def _body(q_ref, k_ref, o_ref, *, bk, scale):
    nk = k_ref.shape[0] // bk
    q, score_scale = ac.queries(q_ref[...], scale)
    m, l = ac.row_stats(q, score_scale, k_ref, bk, 0, nk)
    inv = 1.0 / l

    def write(j, carry):
        p = jnp.exp2(ac.scores(q, score_scale, k_ref, j, bk) - m[:, None]) * inv[:, None]
        o_ref[:, pl.ds(pl.multiple_of(j * bk, bk), bk)] = p.astype(o_ref.dtype)
        return carry

    lax.fori_loop(0, nk, write, 0)


def _one_pass_body(q_ref, k_ref, o_ref, *, bk, scale):
    """Every score tile of the row block stays live (a Python-unrolled list): one dot per tile,
    no recompute. For bq * N scores that fit the registers."""
    q, score_scale = ac.queries(q_ref[...], scale)
    s = [ac.scores(q, score_scale, k_ref, j, bk) for j in range(k_ref.shape[0] // bk)]
    m = functools.reduce(jnp.maximum, [jnp.max(t, axis=1) for t in s])
    p = [jnp.exp2(t - m[:, None]) for t in s]
    inv = 1.0 / functools.reduce(jnp.add, [jnp.sum(t, axis=1) for t in p])
    for j, t in enumerate(p):
        o_ref[:, j * bk:(j + 1) * bk] = (t * inv[:, None]).astype(o_ref.dtype)


def _stats_body(q_ref, k_ref, m_ref, l_ref, *s_ref, bk, scale, tiles):
    """Split pl.program_id(1)'s partial row max and exp-sum over its `tiles` key tiles; with an
    s_ref (store_scores), its (bq, tiles * bk) float32 base-2 scores too."""
    q, score_scale = ac.queries(q_ref[...], scale)

    def store(j, s):
        s_ref[0][:, pl.ds(pl.multiple_of(j * bk, bk), bk)] = s

    m_ref[...], l_ref[...] = ac.row_stats(q, score_scale, k_ref, bk, pl.program_id(1) * tiles, tiles,
                                        store if s_ref else None)


def _tile_body(q_ref, k_ref, m_ref, l_ref, o_ref, *, scale, splits):
    """One (bq, bk) output tile: the splits' stats merged per row, then exp2(s - M) / L."""
    q, score_scale = ac.queries(q_ref[...], scale)
    s = lax.dot_general(q, k_ref[...], (((1,), (1,)), ((), ())), preferred_element_type=jnp.float32)
    s = s if score_scale is None else s * score_scale
    _normalise(s, m_ref, l_ref, o_ref, splits)


def _stored_tile_body(s_ref, m_ref, l_ref, o_ref, *, splits):
    """As _tile_body, the scores read from the stats pass's store instead of recomputed."""
    _normalise(s_ref[...], m_ref, l_ref, o_ref, splits)


def _normalise(s, m_ref, l_ref, o_ref, splits):
    m = [m_ref[i, :] for i in range(splits)]
    top = functools.reduce(jnp.maximum, m)  # each split saw keys: every m[i] is finite
    total = functools.reduce(jnp.add, [l_ref[i, :] * jnp.exp2(m[i] - top) for i in range(splits)])
    o_ref[...] = (jnp.exp2(s - top[:, None]) * (1.0 / total)[:, None]).astype(o_ref.dtype)


def _split_kernel(q, k, *, n, dp, scale, warps, stages):
    """Two pallas_calls: row stats over a (query block, key split) grid, then the N*N store over
    a (query block, key block) grid, so the store runs at full parallelism."""
    splits = min(tuning.choice(NAME, "splits", 4), n // 16)
    bq1 = min(tuning.choice(NAME, "stats_bq", BLOCK_Q), n)
    bk1 = min(max(16, KEY_TILE_ELEMENTS // dp), 128, n // splits)
    # store_scores: the stats pass also writes its float32 scores (n * n * 4 bytes, L2-resident at
    # LARGE) and the store pass reads them: one q.k dot per score instead of two, as XLA's
    # gemm + softmax does; the store pass becomes a stream.
    stored = tuning.choice(NAME, "store_scores", False)
    out_shape = [jax.ShapeDtypeStruct((splits, n), jnp.float32)] * 2
    out_specs = [pl.BlockSpec((None, bq1), lambda i, s: (s, i))] * 2
    if stored:
        out_shape.append(jax.ShapeDtypeStruct((n, n), jnp.float32))
        out_specs.append(pl.BlockSpec((bq1, n // splits), lambda i, s: (i, s)))
    m, l, *scores = pl.pallas_call(
        functools.partial(_stats_body, bk=bk1, scale=scale, tiles=n // splits // bk1),
        out_shape=out_shape,
        grid=(n // bq1, splits),
        in_specs=[pl.BlockSpec((bq1, dp), lambda i, s: (i, 0)), pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=out_specs,
        compiler_params=tl.triton_params(num_warps=tuning.choice(NAME, "stats_warps", 4), num_stages=stages),
        name=f"{NAME}_stats",
    )(q, k)
    bq2, bk2 = (min(tuning.choice(NAME, key, 64), n) for key in ("tile_q", "tile_k"))
    stats = [pl.BlockSpec((splits, bq2), lambda i, j: (0, i))] * 2
    if stored:
        body, args = _stored_tile_body, (scores[0], m, l)
        in_specs = [pl.BlockSpec((bq2, bk2), lambda i, j: (i, j)), *stats]
    else:
        body, args = functools.partial(_tile_body, scale=scale), (q, k, m, l)
        in_specs = [pl.BlockSpec((bq2, dp), lambda i, j: (i, 0)),
                    pl.BlockSpec((bk2, dp), lambda i, j: (j, 0)), *stats]
    return pl.pallas_call(
        functools.partial(body, splits=splits),
        out_shape=jax.ShapeDtypeStruct((n, n), q.dtype),
        grid=(n // bq2, n // bk2),
        in_specs=in_specs,
        out_specs=pl.BlockSpec((bq2, bk2), lambda i, j: (i, j)),
        compiler_params=tl.triton_params(num_warps=warps, num_stages=stages),
        name=f"{NAME}_tiles",
    )(*args)


def _mosaic_kernel(q, k, *, n, scale):
    """The Mosaic GPU scores, then exp2 row softmax (mode "mosaic")."""
    mosaic_matmul.refuse_interpret_mode(NAME)
    cfg = mosaic_config(n, n, 1, q.dtype.itemsize, functools.partial(tuning.choice, NAME))
    scores = mosaic_matmul.matmul(q, k, lambda s: s * scale, packed=True, config=cfg,
                                  out_dtype=jnp.float32, name=f"{NAME}_scores")
    # The row pass's launch keys, tunable here as "rows_block_bytes" and "rows_num_warps".
    rows = {key: value for key in ("block_bytes", "num_warps")
            if (value := tuning.choice(NAME, "rows_" + key, None)) is not None}
    with tuning.variant(f"{NAME}_rows", **rows):
        return rowwise.map_rows(scores, rowwise.softmax2_whole, rowwise.softmax2_tiled, other=-jnp.inf,
                                out_dtype=q.dtype, name=f"{NAME}_rows")


# Chosen on the H200 by bench/probe.py (bench/results/2026-12-03-h200-kernels/; LARGE from
# bench/results/2026-12-04-h200-3, call 1: mode "mosaic", 128 x 64 score tiles, over the split
# modes: float32 10.70 -> 7.33 us, bfloat16 7.94 -> 6.18 us, against XLA's 8.86 and 5.79).
TUNED = tuning.Tuned(gpu="NVIDIA H200", source="bench/results/2026-12-03-h200-kernels", configs={
    "medium": {"float32": {"mode": 'one_pass'}, "bfloat16": {"mode": 'one_pass'}},
    "large": {"float32": {"mode": "mosaic"}, "bfloat16": {"mode": "mosaic"}},
})


@tuning.tuned_kernel(NAME, SHAPES, INPUTS, TUNED)
def kernel(q, k):
    n, d = q.shape
    dp = max(16, tl.next_pow2(d))
    if n < 16 or n != tl.next_pow2(n):  # whole power-of-two tiles, >= 16 rows for the dot
        raise ValueError(f"{NAME}: N must be a power of two >= 16, got {n}")
    if dp != d:  # zero features add nothing to q.k; the dot needs power-of-two dims >= 16
        q, k = jnp.pad(q, ((0, 0), (0, dp - d))), jnp.pad(k, ((0, 0), (0, dp - d)))
    scale = math.log2(math.e) / math.sqrt(d)
    warps, stages = tuning.choice(NAME, "num_warps", 4), tuning.choice(NAME, "num_stages", 2)
    mode = tuning.choice(NAME, "mode", "two_pass")
    if mode == "mosaic":
        return _mosaic_kernel(q, k, n=n, scale=scale)
    if mode == "split":
        return _split_kernel(q, k, n=n, dp=dp, scale=scale, warps=warps, stages=stages)
    bq = min(tuning.choice(NAME, "bq", BLOCK_Q), n)
    bk = min(tuning.choice(NAME, "bk", min(max(16, KEY_TILE_ELEMENTS // dp), 128)), n)
    body = {"two_pass": _body, "one_pass": _one_pass_body}[mode]
    return pl.pallas_call(
        functools.partial(body, bk=bk, scale=scale),
        out_shape=jax.ShapeDtypeStruct((n, n), q.dtype),
        grid=(n // bq,),
        in_specs=[pl.BlockSpec((bq, dp), lambda i: (i, 0)),
                  pl.BlockSpec(memory_space=pl.ANY)],  # key tiles are loaded in the loops
        out_specs=pl.BlockSpec((bq, n), lambda i: (i, 0)),
        compiler_params=tl.triton_params(num_warps=warps, num_stages=stages),
        name=NAME,
    )(q, k)


def kernel_mosaic(q, k):
    return mosaic_qk_softmax.probabilities(q, k, name=NAME)


BACKENDS = {"mosaic_gpu": kernel_mosaic, "triton": kernel}


def flops(shapes):
    n, d = shapes["q"]
    return 2 * n * n * d + SOFTMAX_FLOPS * n * n


def bytes_moved(shapes, itemsize=4):
    # q and k read once and the (N, N) probabilities written, floats at `itemsize` bytes (4 at
    # float32, 2 at bfloat16/float16).
    n, d = shapes["q"]
    return (2 * n * d + n * n) * itemsize
