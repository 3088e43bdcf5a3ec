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
for the two projection kernels; "bq", "bk", "num_warps", "num_stages" (online_attention.
tuned_blocks), "bn_out", "out_splits" (programs per query block, each projecting a
share of h's columns) and "kv_splits" (the keys split over programs, merged in the projection
call) for the attention kernel; "ffn_block_m", "ffn_block_n", "ffn_warps" for the
feed-forward kernel alone; "full_precision" "split_tf32" runs the
float16 dots as three TF32 dots on hi + lo splits (online_attention.dot) instead of IEEE FMA.

"proj_backend" "mosaic" (float32 only) runs both projections on the Mosaic GPU matmul
(kernels/mosaic_matmul.py): rmsnorm(x) and rmsnorm(h) as passes of their own (rounded to nearest
TF32), the weights packed K-major by one pass each (wq, wk, wv side by side), the q scale a
per-column vector in the kernel's bias slot, relu in the ffn's epilogue and its residual a pass of
its own; q, k and v are slices of the one qkv product. Hopper only (refused in interpret mode).

"qkv_views" (with "proj_backend" "mosaic"): the attention reads q, k and v as column blocks of
the projection's [q | k | v] output instead of XLA slices of it.

Shipped configuration: the TUNED table (chosen on the H200 by bench/probe.py,
bench/results/2026-12-03-h200-kernels/; LARGE float32 from 2026-12-03-h200-tuning2/) sets these
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
from pallasbench.kernels import elementwise, fused_matmul_mosaic, mosaic_matmul
from pallasbench.kernels import online_attention as ac
from pallasbench.kernels.weight_pack import pack_side_by_side, round_tf32
from pallasbench.task import tuning

NAME = "transformer_block"
LEVEL = 3
CATEGORY = "full_model"
INPUTS = (tl.Input("x", tl.REAL), tl.Input("wq", tl.REAL), tl.Input("wk", tl.REAL),
          tl.Input("wv", tl.REAL), tl.Input("wo", tl.REAL), tl.Input("wff", tl.REAL))
SHAPES = tl.sizes(medium={"x": (128, 256), "wq": (256, 64), "wk": (256, 64), "wv": (256, 64),
                          "wo": (64, 256), "wff": (256, 256)})
TOLERANCE = tl.MATMUL
USES_TF32 = True
ORDER_DEPENDENT = False
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


def _attn_body(q_ref, k_ref, v_ref, x_ref, wo_ref, h_ref, *, bk, bn, precision):
    """Attention of bq rows, then h's columns of this program (pl.program_id(1): out_splits > 1
    gives each of the row block's programs width / out_splits columns, its attention recomputed)."""
    q = q_ref[...]
    acc, _, l = ac.flash_loop(
        q, lambda j: (k_ref[ac.tile(j, bk), :], v_ref[ac.tile(j, bk), :]),
        0, k_ref.shape[0] // bk, ac.init(*q.shape), precision=precision)
    _project(acc / l[:, None], x_ref, wo_ref, h_ref, bn, precision)


def _partial_body(q_ref, k_ref, v_ref, acc_ref, m_ref, l_ref, *, bk, tiles, precision):
    """kv_splits: key split pl.program_id(1)'s unnormalised state over its `tiles` key tiles."""
    q = q_ref[...]
    first = pl.program_id(1) * tiles  # read outside the loop: interpret mode cannot lower it inside
    acc_ref[...], m_ref[...], l_ref[...] = ac.flash_loop(
        q, lambda j: (k_ref[ac.tile(j, bk), :], v_ref[ac.tile(j, bk), :]),
        first, first + tiles, ac.init(*q.shape), precision=precision)


def _merged_body(acc_ref, m_ref, l_ref, x_ref, wo_ref, h_ref, *, bn, splits, precision):
    """kv_splits: the splits' states rescaled to the common row max and summed, then projected."""
    m = [m_ref[i, :] for i in range(splits)]
    top = functools.reduce(jnp.maximum, m)  # every split saw keys: each m[i] is finite
    w = [jnp.exp2(mi - top) for mi in m]
    l = functools.reduce(jnp.add, [l_ref[i, :] * w[i] for i in range(splits)])
    acc = functools.reduce(jnp.add, [acc_ref[i] * w[i][:, None] for i in range(splits)])
    _project(acc / l[:, None], x_ref, wo_ref, h_ref, bn, precision)


def _project(attn, x_ref, wo_ref, h_ref, bn, precision):
    """h = x + attn @ wo over this program's h_ref columns, bn at a time."""
    attn = ac.dot_operand(attn, jnp.float32, precision)
    chunks = h_ref.shape[1] // bn
    first = pl.program_id(1) * chunks  # read outside the loop: interpret mode cannot lower it inside

    def project(c, carry):  # h[:, c] = x[:, c] + attn @ wo[:, c], bn model columns at a time
        cols = ac.tile(c, bn)
        residual = x_ref[:, cols].astype(jnp.float32)
        wo = wo_ref[:, ac.tile(first + c, bn)].astype(jnp.float32)  # exact: attn is float32
        h_ref[:, cols] = residual + ac.dot(attn, wo, _MATMUL_DIMS, precision)
        return carry

    lax.fori_loop(0, chunks, project, 0)


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


def _normed_body(x_ref, o_ref):
    x = x_ref[...]
    inv = 1.0 / jnp.sqrt(jnp.mean(x * x, axis=1, keepdims=True) + EPS)
    o_ref[...] = round_tf32(x * inv)


def _normed(x, name):
    """rmsnorm(x), rounded to nearest TF32 (wgmma would truncate it), whole rows a program: the
    Mosaic matmul reads its operand by TMA straight into shared memory, where no row statistic
    can be taken, so the norm is a pass of its own (one read and one write of x)."""
    seq, width = x.shape
    br = tl.dividing_tile(seq, max(16, 8192 // width))  # ~32 KB blocks
    if seq % br:
        raise ValueError(f"{NAME}: {seq} rows do not split into {br}-row blocks for the rmsnorm pass")
    rows = pl.BlockSpec((br, width), lambda i: (i, 0))
    return pl.pallas_call(_normed_body, out_shape=jax.ShapeDtypeStruct(x.shape, jnp.float32),
                          grid=(seq // br,), in_specs=[rows], out_specs=rows,
                          compiler_params=tl.triton_params(num_warps=4, num_stages=1), name=name)(x)


def _mosaic_projection(xn, weights, epilogue, *, bias=None, name):
    """epilogue(xn @ [w_1 | ... | w_n][, bias]) on the Mosaic GPU matmul: the weights packed
    side by side into one K-major (n * N, K) operand (one packing pass; no concatenation), one
    persistent TMA + wgmma kernel over all their columns. float32 only (TF32 wgmma)."""
    mosaic_matmul.refuse_interpret_mode(NAME)
    (m, k), n = xn.shape, sum(w.shape[1] for w in weights)
    cfg = fused_matmul_mosaic.mosaic_config(m, n, 1, 4, functools.partial(tuning.choice, NAME))
    if m % cfg.bm or n % cfg.width or k % cfg.bk:
        raise ValueError(f"{NAME}: the Mosaic projection {name} needs ({m}, {n}, {k}) in whole "
                         f"({cfg.bm}, {cfg.width}, {cfg.bk}) tiles")
    packed = pack_side_by_side(weights, rounded=True, name=name + "_pack")
    return mosaic_matmul.matmul(xn, packed, epilogue, bias=bias, n_w=1, packed=True, config=cfg,
                                out_dtype=jnp.float32, name=name)


def _mosaic_qkv(x, wq, wk, wv, q_scale):
    """[q | k | v], (seq, 3 * d_head), as the Triton kernel writes them (q times the base-2
    softmax scale, all three rounded to nearest TF32), from one Mosaic matmul of rmsnorm(x) by
    [wq | wk | wv]: the scale is a per-column vector in the bias slot."""
    dp = wq.shape[1]
    scale = jnp.concatenate([jnp.full((dp,), q_scale, jnp.float32), jnp.ones((2 * dp,), jnp.float32)])
    qkv = _mosaic_projection(_normed(x, f"{NAME}_rmsnorm_x"), [wq, wk, wv],
                             lambda y, s: round_tf32(y * s), bias=scale, name=f"{NAME}_qkv_mosaic")
    return qkv


def _residual_body(h_ref, r_ref, o_ref):
    o_ref[...] = (h_ref[...] + r_ref[...]).astype(o_ref.dtype)


def _mosaic_ffn(h, wff, out_dtype):
    """h + relu(rmsnorm(h) @ wff): the Mosaic matmul with a relu epilogue, the residual a pass
    of its own (the epilogue sees only the accumulator)."""
    ffn = _mosaic_projection(_normed(h, f"{NAME}_rmsnorm_h"), [wff], lambda y: jnp.maximum(y, 0.0),
                             name=f"{NAME}_ffn_mosaic")
    return elementwise.map_blocks(_residual_body, h, ffn, pad_edges=True, out_dtype=out_dtype,
                                  name=f"{NAME}_residual")


# Chosen on the H200 by bench/probe.py (bench/results/2026-12-03-h200-kernels/).
TUNED = tuning.Tuned(
    gpu="NVIDIA H200", source="bench/results/2026-12-03-h200-kernels",
    configs={
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

    bq, bkv, warps, stages = ac.tuned_blocks(NAME, seq, dp)
    # wo column tiles of <= 8K elements: two buffered tiles plus the attention output as a dot
    # operand stay within shared memory even at d_head = 256.
    bn_out = min(width, tuning.choice(NAME, "bn_out", min(128, max(16, 8192 // dp))))
    # out_splits programs per query block, each projecting width / out_splits columns: seq / bq
    # programs alone are 32 at LARGE (bq 16) for 132 SMs; the attention is recomputed per split.
    splits = min(tuning.choice(NAME, "out_splits", 1), width // bn_out)
    q_rows = pl.BlockSpec((bq, width // splits), lambda i, c: (i, c))
    params = tl.triton_params(num_warps=warps, num_stages=stages)
    any_ = pl.BlockSpec(memory_space=pl.ANY)
    # k and v whole (the loops load their tiles): the raw arrays, or their column block of qkv.
    k_all, v_all = ((any_, any_) if cols == (0, 0, 0) else
                    [pl.BlockSpec((seq, dp), lambda i, s, c=c: (0, c)) for c in cols[1:]])
    # kv_splits > 1: the keys split over that many programs per query block (a first call writes
    # each split's running state), the merge fused into the projection call below.
    kv_splits = min(tuning.choice(NAME, "kv_splits", 1), seq // bkv)
    if kv_splits > 1:
        part = lambda *shape: jax.ShapeDtypeStruct((kv_splits, *shape), f32)  # noqa: E731
        acc, m, l = pl.pallas_call(
            functools.partial(_partial_body, bk=bkv, tiles=seq // bkv // kv_splits, precision=precision),
            out_shape=[part(seq, dp), part(seq), part(seq)],
            grid=(seq // bq, kv_splits),
            in_specs=[pl.BlockSpec((bq, dp), lambda i, s: (i, cols[0])), k_all, v_all],
            out_specs=[pl.BlockSpec((None, bq, dp), lambda i, s: (s, i, 0)),
                       *[pl.BlockSpec((None, bq), lambda i, s: (s, i))] * 2],
            compiler_params=params,
            name=f"{NAME}_attention_part",
        )(q, k, v)
        body = functools.partial(_merged_body, bn=bn_out, splits=kv_splits, precision=precision)
        args = (acc, m, l, x, wo)
        in_specs = [pl.BlockSpec((kv_splits, bq, dp), lambda i, c: (0, i, 0)),
                    *[pl.BlockSpec((kv_splits, bq), lambda i, c: (0, i))] * 2, q_rows, any_]
    else:
        body = functools.partial(_attn_body, bk=bkv, bn=bn_out, precision=precision)
        args = (q, k, v, x, wo)
        in_specs = [pl.BlockSpec((bq, dp), lambda i, c: (i, cols[0])), k_all, v_all, q_rows, any_]
    h = pl.pallas_call(
        body,
        out_shape=jax.ShapeDtypeStruct((seq, width), f32),
        grid=(seq // bq, splits),
        in_specs=in_specs,
        out_specs=q_rows,
        compiler_params=params,
        name=f"{NAME}_attention_out",
    )(*args)

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
