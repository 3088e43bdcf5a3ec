"""transformer_block: h = x + attn(rmsnorm(x)) @ wo; out = h + relu(rmsnorm(h) @ wff).

One head, scale 1/sqrt(d_head), weightless rmsnorm (eps 1e-5). Three pallas_calls: (1) rmsnorm
+ q/k/v projections, 1/rms applied in the epilogue (rmsnorm(x) @ w = (x @ w) / rms(x));
(2) flash attention + output projection + residual, the attention output never leaving
registers; (3) rmsnorm + feed-forward + relu + residual. Dots use TF32 tensor cores
(USES_TF32 = True); attention operands are rounded to nearest TF32 in-kernel first.

At bfloat16/float16 only the first projection's dots take the input dtype (16-bit tensor cores,
float32 accumulators): q, k, v and h stay float32 in memory, as in the reference, and the later
dots run on them with the weights widened exactly. At the large stress case h is ~1e5-1e6 and
the output cancels against it: bf16 q, k, v and attention output put errors at ~1.1x the bf16
bound there (0.5x in float32 with TF32 dots, as at float32), and h is past float16's range. At
float16 those dots run at full float32 precision (IEEE, FULL_PRECISION_AT): its bound, 2e-3
elementwise, is a fifth of the float32 task's, and TF32's 11 bits on q, k, v, p and h reach
~0.9x of it there. The output is rounded once to the input's dtype.

Tuning (pallasbench.task.tuning): "block_m", "block_n", "block_k", "proj_warps", "proj_stages"
for the two projection kernels; online_attention.attention_projection's keys ("bq", "bk",
"num_warps", "num_stages", "bn_out", "out_splits", "kv_splits") for the attention kernel;
"ffn_block_m", "ffn_block_n", "ffn_warps" for the feed-forward kernel alone; "full_precision"
"split_tf32" runs the float16 dots as three TF32 dots on hi + lo splits (online_attention.dot)
instead of IEEE FMA.

"proj_backend" "mosaic" (float32 only) runs both projections on the Mosaic GPU matmul
(fused_matmul_mosaic.side_by_side: wq, wk, wv packed side by side by one pass) after rmsnorm(x)
and rmsnorm(h) as passes of their own (fused_matmul_mosaic.rms_normalized); the q scale is a
per-column vector in the kernel's bias slot, relu the ffn's epilogue and its residual a pass of
its own; q, k and v are slices of the one qkv product (or, "qkv_views", the attention reads
them as column blocks of it). Hopper only (refused in interpret mode).

No Mosaic GPU implementation (the one task without, issue 38): the Mosaic matmul takes operands by
TMA straight into SMEM (rmsnorm's row statistic a pass), its epilogue sees acc and a bias vector
only (each residual a pass, the output projection a matmul after attention), and float32 weights
need the Triton packing pass (docs/jax_versions.md): 8 kernels, 2 Triton, for 3 ("proj_backend").

Shipped configuration: the TUNED table (chosen on the H200 by bench/probe.py; the results beside
each entry) at the task's MEDIUM and LARGE shapes per dtype (float16 takes bfloat16's); any other
shape takes the defaults above. Each record's kernel_config says which values ran.
"""

import functools
import math

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from pallasbench import task as tl
from pallasbench.kernels import elementwise, fused_matmul_mosaic
from pallasbench.kernels import online_attention as ac
from pallasbench.kernels.weight_pack import round_tf32
from pallasbench.task import tuning
from pallasbench.task.families.matmul import ORDER_DEPENDENT, USES_TF32

NAME = "transformer_block"
LEVEL = 3
CATEGORY = "full_model"
INPUTS = (tl.Input("x", tl.REAL), *(tl.Input(w, tl.REAL, weight=True) for w in ("wq", "wk", "wv", "wo", "wff")))
SHAPES = tl.sizes(medium={"x": (128, 256), "wq": (256, 64), "wk": (256, 64), "wv": (256, 64),
                          "wo": (64, 256), "wff": (256, 256)})
TOLERANCE = tl.MATMUL
# Stress: wq, wk keep their scale: x1e3 on both puts scores at 1e6, beyond what TF32
# resolves; x, wv, wo, wff take the matmul class's x1e3.
STRESS = tl.stress_cases("tiny", "large", keep=("wq", "wk"), large_factor=1e3,
                         offset="full model: its rmsnorm is not shift-invariant; the attention tasks check "
                         "the score offset",
                         degenerate=tl.NO_DISCRETE_INPUT, distinct=tl.NO_DISCRETE_INPUT)

EPS = 1e-5
# Projection tiles: rows per program, output columns per program, K step (all capped by shape).
BLOCK_M, BLOCK_N, BLOCK_K = 32, 64, 64
# Dtypes whose bound needs the dots on float32 intermediates at full precision, not TF32.
FULL_PRECISION_AT = (jnp.float16,)
_MATMUL_DIMS = (((1,), (0,)), ((), ()))


def make_inputs(rng, shapes):
    return (tl.normal(rng, shapes["x"]),
            *(tl.weight(rng, shapes[name]) for name in ("wq", "wk", "wv", "wo", "wff")))


def _rmsnorm(x):
    return x / jnp.sqrt(jnp.mean(x * x, axis=-1, keepdims=True) + EPS)


def reference(x, wq, wk, wv, wo, wff):
    n = _rmsnorm(x)
    q, k, v = n @ wq, n @ wk, n @ wv
    attn = jax.nn.softmax(q @ k.T / math.sqrt(wq.shape[1]), axis=-1) @ v
    h = x + attn @ wo
    return h + jax.nn.relu(_rmsnorm(h) @ wff)


def _qkv_body(x_ref, wq_ref, wk_ref, wv_ref, q_ref, k_ref, v_ref, *, bk, q_scale, precision):
    width = x_ref.shape[1]

    def step(t, carry):  # one K step: x tile feeds the sum of squares and all three dots
        ss, aq, ak, av = carry
        cols = ac.tile(t, bk)
        xt = x_ref[:, cols]  # the dots take it as it is; its squares are summed in float32
        x32 = xt.astype(jnp.float32)
        return (ss + jnp.sum(x32 * x32, axis=1),
                aq + jnp.dot(xt, wq_ref[cols, :], preferred_element_type=jnp.float32),
                ak + jnp.dot(xt, wk_ref[cols, :], preferred_element_type=jnp.float32),
                av + jnp.dot(xt, wv_ref[cols, :], preferred_element_type=jnp.float32))

    acc = jnp.zeros(q_ref.shape, jnp.float32)
    ss, aq, ak, av = lax.fori_loop(0, width // bk, step,
                                   (jnp.zeros((x_ref.shape[0],), jnp.float32), acc, acc, acc))
    inv = (1.0 / jnp.sqrt(ss / width + EPS))[:, None]
    # q carries the softmax scale (base 2); all three are attention dot operands: TF32-rounded
    # unless those dots run at full precision.
    q_ref[...] = ac.dot_operand(aq * (inv * q_scale), q_ref.dtype, precision)
    k_ref[...] = ac.dot_operand(ak * inv, k_ref.dtype, precision)
    v_ref[...] = ac.dot_operand(av * inv, v_ref.dtype, precision)


def _ffn_body(h_ref, w_ref, o_ref, *, bk, precision):
    width = h_ref.shape[1]

    def step(t, carry):
        ss, acc = carry
        cols = ac.tile(t, bk)
        ht = h_ref[:, cols]
        return (ss + jnp.sum(ht * ht, axis=1),
                acc + ac.dot(ht, w_ref[cols, :].astype(jnp.float32), _MATMUL_DIMS, precision))

    ss, acc = lax.fori_loop(0, width // bk, step, (jnp.zeros((h_ref.shape[0],), jnp.float32),
                                                    jnp.zeros(o_ref.shape, jnp.float32)))
    inv = 1.0 / jnp.sqrt(ss / width + EPS)
    residual = h_ref[:, ac.tile(pl.program_id(1), o_ref.shape[1])]
    o_ref[...] = (residual + jnp.maximum(acc * inv[:, None], 0.0)).astype(o_ref.dtype)


def _mosaic_qkv(x, wq, wk, wv, q_scale):
    """[q | k | v] as the Triton kernel writes them (q scaled, all three TF32-rounded) from one
    Mosaic matmul of rmsnorm(x) by [wq | wk | wv], the scale a per-column vector in the bias slot."""
    dp = wq.shape[1]
    scale = jnp.concatenate([jnp.full((dp,), q_scale, jnp.float32), jnp.ones((2 * dp,), jnp.float32)])
    return fused_matmul_mosaic.side_by_side(
        fused_matmul_mosaic.rms_normalized(x, eps=EPS, name=f"{NAME}_rmsnorm_x", task=NAME), [wq, wk, wv],
        lambda y, s: round_tf32(y * s), bias=scale, name=f"{NAME}_qkv_mosaic", task=NAME)


def _mosaic_ffn(h, wff, out_dtype):
    """h + relu(rmsnorm(h) @ wff): a relu epilogue, the residual a pass (the epilogue sees only acc)."""
    ffn = fused_matmul_mosaic.side_by_side(
        fused_matmul_mosaic.rms_normalized(h, eps=EPS, name=f"{NAME}_rmsnorm_h", task=NAME), [wff],
        lambda y: jnp.maximum(y, 0.0), name=f"{NAME}_ffn_mosaic", task=NAME)
    return elementwise.map_float32(jnp.add, h, ffn, pad_edges=True, out_dtype=out_dtype, name=f"{NAME}_residual")


# Chosen on the H200 by bench/probe.py (bench/results/2026-12-03-h200-kernels/).
TUNED = tuning.Tuned(gpu="NVIDIA H200", source="bench/results/2026-12-03-h200-kernels", configs={
    "medium": {"float32": {"bq": 16, "block_m": 16, "block_n": 32}, "bfloat16": {"bq": 16, "block_m": 16, "block_n": 32}},
    # float32: bench/results/2026-12-03-h200-tuning2 (call 1, bm16_kv4_out4_ffn64x64 over the
    # earlier entry): 162.9 -> 95.0 us
    # float32 projections on the Mosaic GPU matmul (bench/results/2026-12-04-h200-2, call 2:
    # mosaic_proj, 95.6 -> 62.1 us, XLA 57.2); the attention's tiles as before.
    "large": {"float32": {"bq": 16, "bk": 32, "num_stages": 3, "kv_splits": 4, "out_splits": 4,
                          "proj_backend": "mosaic"},
              "bfloat16": {"bq": 16, "bk": 32, "num_stages": 3}},
})


@tuning.tuned_kernel(NAME, SHAPES, INPUTS, TUNED)
def kernel(x, wq, wk, wv, wo, wff):
    seq, width = x.shape
    d = wq.shape[1]
    if width < 16 or width != tl.next_pow2(width):
        raise ValueError(f"{NAME}: model width must be a power of two >= 16, got {width}")
    # Zero head features add nothing to q.k, leave v's extra columns zero, meet zero wo rows.
    dp = ac.padded_head_dim(d)
    wq, wk, wv = (ac.pad_last(w, dp) for w in (wq, wk, wv))
    wo = jnp.pad(wo, ((0, dp - d), (0, 0)))
    f32 = jnp.float32
    precision = None
    if x.dtype in FULL_PRECISION_AT:  # tuning may swap IEEE dots for the three-TF32-dot split
        precision = {"ieee": lax.Precision.HIGHEST, "split_tf32": ac.SPLIT_TF32}[
            tuning.choice(NAME, "full_precision", "ieee")]

    bm, bk = min(tuning.choice(NAME, "block_m", BLOCK_M), seq), min(tuning.choice(NAME, "block_k", BLOCK_K), width)
    bn = min(tuning.choice(NAME, "block_n", BLOCK_N), dp)
    proj = tl.triton_params(num_warps=tuning.choice(NAME, "proj_warps", 4),
                            num_stages=tuning.choice(NAME, "proj_stages", 2))
    ffn = tl.triton_params(num_warps=tuning.choice(NAME, "ffn_warps", tuning.choice(NAME, "proj_warps", 4)),
                           num_stages=tuning.choice(NAME, "proj_stages", 2))
    rows = pl.BlockSpec((bm, width), lambda i, j: (i, 0))
    panel = pl.BlockSpec((width, bn), lambda i, j: (0, j))
    qkv_tile = pl.BlockSpec((bm, bn), lambda i, j: (i, j))
    # "proj_backend" "mosaic" (float32 only): both projections on the Mosaic GPU matmul.
    mosaic = x.dtype == f32 and tuning.choice(NAME, "proj_backend", "triton") == "mosaic"
    # Where the attention reads q, k and v: three arrays, or (qkv_views) three column blocks of
    # the Mosaic projection's [q | k | v], with no XLA slices copying them out first.
    cols = (0, 0, 0)
    if mosaic:
        qkv = _mosaic_qkv(x, wq, wk, wv, ac.LOG2E / math.sqrt(d))
        if tuning.choice(NAME, "qkv_views", False):
            q = k = v = qkv
            cols = (0, 1, 2)
        else:
            q, k, v = qkv[:, :dp], qkv[:, dp:2 * dp], qkv[:, 2 * dp:]
    else:
        q, k, v = pl.pallas_call(
            functools.partial(_qkv_body, bk=bk, q_scale=ac.LOG2E / math.sqrt(d), precision=precision),
            out_shape=[jax.ShapeDtypeStruct((seq, dp), f32)] * 3,
            grid=(seq // bm, dp // bn),
            in_specs=[rows, panel, panel, panel],
            out_specs=[qkv_tile] * 3,
            compiler_params=proj,
            name=f"{NAME}_rmsnorm_qkv",
        )(x, wq, wk, wv)

    h = ac.attention_projection(q, k, v, x, wo, cols=cols, precision=precision, name=NAME)

    if mosaic:
        return _mosaic_ffn(h, wff, x.dtype)
    # The feed-forward's own tiles where set: its (seq, width) output takes 64x64 tiles in 128
    # programs at LARGE, where the qkv kernel's (seq, d_head) output would have 32.
    bm = min(tuning.choice(NAME, "ffn_block_m", bm), seq)
    bn = min(tuning.choice(NAME, "ffn_block_n", tuning.choice(NAME, "block_n", BLOCK_N)), width)
    rows = pl.BlockSpec((bm, width), lambda i, j: (i, 0))
    return pl.pallas_call(
        functools.partial(_ffn_body, bk=bk, precision=precision),
        out_shape=jax.ShapeDtypeStruct((seq, width), x.dtype),
        grid=(seq // bm, width // bn),
        in_specs=[rows, pl.BlockSpec((width, bn), lambda i, j: (0, j))],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j: (i, j)),
        compiler_params=ffn,
        name=f"{NAME}_rmsnorm_ffn",
    )(h, wff)


def flops(shapes):
    seq, width = shapes["x"]
    d = shapes["wq"][1]
    rmsnorm = 3 * seq * width  # square, sum, scale
    qkv = 3 * 2 * seq * width * d
    attention = 4 * seq * seq * d + 5 * seq * seq  # two dots; scale, max, sub, exp, sum
    out_proj = 2 * seq * d * width + seq * width  # + residual
    ffn = 2 * seq * width * width + 2 * seq * width  # + relu, residual
    return 2 * rmsnorm + qkv + attention + out_proj + ffn


def bytes_moved(shapes, itemsize=4):
    # Every input read once and the output (x's shape) written once, floats at `itemsize` bytes
    # (4 at float32, 2 at bfloat16/float16).
    return itemsize * (sum(math.prod(s) for s in shapes.values()) + math.prod(shapes["x"]))
