"""triangle_update: out = pair + u, u[i, j, c] = sum_k pair[i,k,c] m[i,k] pair[k,j,c] m[k,j].

Per channel u is a masked (N, N) matmul. The pair tensor is laid out channel-major outside the
kernel (layout only); each program owns one channel's (T, T) output tile and contracts over k
in (T, T) tiles on tensor cores, masking the operand tiles as they load. A single TF32 pass
misses the matmul bound at LARGE (K = 256, O(1) outputs), so each operand is split into a
round-to-nearest TF32 head and an fp32 tail and three TF32 dots recover ~fp32 accuracy.
At bfloat16/float16 one dot per step suffices: the operands (pair times a 0/1 mask, exact) go to
the 16-bit tensor cores as they are, whose products are exact in the float32 accumulator. The
residual add is float32, the output rounded once to pair's dtype.

Tunable (tuning.choice): the output tile, the contraction step "tile_k", warps and stages; "passes" 1 (one TF32 dot a step: the task
allows TF32, though the docstring's LARGE bound may fail) or 3 (the split above); and "layout"
"strided", which skips both transposes: the kernel reads pair[i, k, c] and writes out[i, j, c]
in place with a stride of C elements (each channel's program still owns a (T, T) tile; the
channels' programs together cover every byte of the rows they touch, so L2 absorbs the stride).
"split" (float32, three passes, channel-major): "registers" (the default) splits each operand
tile in the loop; "pass" computes the masked pair's TF32 head and tail once, in a Pallas pass of
their own (two channel-major arrays), so the contraction loop loads TF32-exact tiles straight
into its three dots, with no masking or bit arithmetic between the loads and the tensor cores.

Shipped configuration: the TUNED table below sets these choices at the task's MEDIUM and LARGE
shapes per dtype (float16 takes bfloat16's); any other shape takes the defaults in `kernel`.
Each record's kernel_config says which values ran.

The Mosaic GPU kernel (kernels/mosaic_triangle.py) runs on CUDA cores in float32 FMAs, on pair as
it lies (channel minor): wgmma needs each channel's (N, N) matrix K-major in SMEM, which TMA
cannot produce from a stride-C view and a channel-major copy outside would move the tensor
again. A one-warpgroup CTA owns (rows, columns, all channels) of u, streams pair's k rows
through a TMA ring and broadcasts row k (along i) and pair[i, k, :] m[i, k] (along j) in
registers. Expected behind the tensor-core Triton kernel at LARGE (2.1 G FMAs), ahead at MEDIUM.
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl

from pallasbench import task as tl
from pallasbench.kernels import mosaic_triangle
from pallasbench.task import tuning

NAME = "triangle_update"
LEVEL = 3
CATEGORY = "genomics"
INPUTS = (tl.Input("pair", tl.REAL), tl.Input("mask", tl.DISCRETE))
SHAPES = tl.sizes(medium={"pair": (64, 64, 32), "mask": (64, 64)})
TOLERANCE = tl.MATMUL
USES_TF32 = True
ORDER_DEPENDENT = False
# Stress: the matmul class's x1e3 on pair; the mask stays 0/1.
STRESS = tl.stress_cases("tiny", "large", "degenerate", large_factor=1e3, offset=tl.NO_ROW_STATISTIC,
                         distinct="the mask is 0/1: all-distinct is impossible")

_TF32_DROP = 13  # fp32 mantissa bits a TF32 operand ignores


def make_inputs(rng, shapes):
    return (tl.normal(rng, shapes["pair"]),
            tl.bernoulli(rng, shapes["mask"], 0.5, dtype=np.float32))


def reference(pair, mask):
    masked = pair * mask[:, :, None]
    return pair + jnp.einsum("ikc,kjc->ijc", masked, masked)


def _split_tf32(x):
    """x = head + tail, head rounded to nearest TF32 (exact on the tensor cores)."""
    bits = jax.lax.bitcast_convert_type(x, jnp.int32)
    half = 1 << (_TF32_DROP - 1)
    keep = -(1 << _TF32_DROP)  # ...111 followed by 13 zero bits
    head = jax.lax.bitcast_convert_type((bits + half) & keep, jnp.float32)
    return head, x - head


def _dot(a, b):
    return jnp.dot(a, b, preferred_element_type=jnp.float32)


def _body(p_ref, m_ref, o_ref, *, tile, tile_k, n, passes, strided):
    c = pl.program_id(0)
    i0 = pl.multiple_of(pl.program_id(1) * tile, tile)
    j0 = pl.multiple_of(pl.program_id(2) * tile, tile)

    def pair(rows, cols):  # one channel's (T, T) tile, channel-major or in place (stride C)
        return p_ref[rows, cols, c] if strided else p_ref[c, rows, cols]

    def step(kt, acc):
        k0 = pl.multiple_of(kt * tile_k, tile_k)
        a = pair(pl.ds(i0, tile), pl.ds(k0, tile_k)) * m_ref[pl.ds(i0, tile), pl.ds(k0, tile_k)]
        b = pair(pl.ds(k0, tile_k), pl.ds(j0, tile)) * m_ref[pl.ds(k0, tile_k), pl.ds(j0, tile)]
        if a.dtype != jnp.float32:  # 16-bit operands: exact products, float32 sums
            return acc + _dot(a, b)
        if passes == 1:  # one TF32 pass
            return acc + _dot(a, b)
        a_hi, a_lo = _split_tf32(a)
        b_hi, b_lo = _split_tf32(b)
        # Small terms first; the dropped a_lo * b_lo is ~2^-22 relative.
        acc += _dot(a_lo, b_hi) + _dot(a_hi, b_lo)
        return acc + _dot(a_hi, b_hi)

    u = jax.lax.fori_loop(0, n // tile_k, step, jnp.zeros((tile, tile), jnp.float32))
    residual = pair(pl.ds(i0, tile), pl.ds(j0, tile)).astype(jnp.float32)
    o_ref[...] = (residual + u).astype(o_ref.dtype)


def _split_pass_body(p_ref, m_ref, hi_ref, lo_ref):
    """The masked pair's TF32 head and tail, one (rows, cols) block of one channel."""
    hi_ref[...], lo_ref[...] = _split_tf32(p_ref[...] * m_ref[...])


def _split_pass(pair_t, mask, tile):
    """(head, tail) of pair_t * mask, channel-major like pair_t: head + tail == pair_t * mask."""
    channels, n, _ = pair_t.shape
    rows = min(32, tile)
    block = pl.BlockSpec((None, rows, tile), lambda c, i, j: (c, i, j))
    return pl.pallas_call(
        _split_pass_body,
        out_shape=[jax.ShapeDtypeStruct(pair_t.shape, jnp.float32)] * 2,
        grid=(channels, n // rows, n // tile),
        in_specs=[block, pl.BlockSpec((rows, tile), lambda c, i, j: (i, j))],
        out_specs=[block, block],
        compiler_params=tl.triton_params(num_warps=4, num_stages=1),
        name=NAME + "_split",
    )(pair_t, mask)


def _presplit_body(hi_ref, lo_ref, p_ref, o_ref, *, tile, tile_k, n):
    """_body's contraction on the split pass's TF32-exact heads and tails."""
    c = pl.program_id(0)
    i0 = pl.multiple_of(pl.program_id(1) * tile, tile)
    j0 = pl.multiple_of(pl.program_id(2) * tile, tile)

    def step(kt, acc):
        k0 = pl.multiple_of(kt * tile_k, tile_k)
        rows, ks, cols = pl.ds(i0, tile), pl.ds(k0, tile_k), pl.ds(j0, tile)
        a_hi, a_lo = hi_ref[c, rows, ks], lo_ref[c, rows, ks]
        b_hi, b_lo = hi_ref[c, ks, cols], lo_ref[c, ks, cols]
        acc += _dot(a_lo, b_hi) + _dot(a_hi, b_lo)  # small terms first, as _body
        return acc + _dot(a_hi, b_hi)

    u = jax.lax.fori_loop(0, n // tile_k, step, jnp.zeros((tile, tile), jnp.float32))
    o_ref[...] = (p_ref[...].astype(jnp.float32) + u).astype(o_ref.dtype)


# Chosen on the H200 by bench/probe.py (bench/results/2026-12-04-h200-2, call 1): 128 x 128
# output tiles at LARGE (HGMMA m64n128 where 64 x 64 tiles ran m64n32), 64 x 64 one-step tiles at
# MEDIUM (N = 64: one program per channel). us, shipped -> chosen (XLA): float32 MEDIUM 8.9 -> 7.7
# (5.0), LARGE 291.3 -> 230.6 (85.4); bfloat16 MEDIUM 5.4 -> 4.6 (4.4), LARGE 66.8 -> 45.6 (41.7).
TUNED = tuning.Tuned(gpu="NVIDIA H200", source="bench/results/2026-12-04-h200-2", configs={
    "medium": {"float32": {"tile": 64, "tile_k": 64, "num_warps": 8, "num_stages": 2},
               "bfloat16": {"tile": 64, "tile_k": 64, "num_warps": 8, "num_stages": 2}},
    "large": {"float32": {"tile": 128, "tile_k": 16, "num_warps": 8, "num_stages": 4},
              "bfloat16": {"tile": 128, "tile_k": 32, "num_warps": 8, "num_stages": 2}},
})


@tuning.tuned_kernel(NAME, SHAPES, INPUTS, TUNED)
def kernel(pair, mask):
    n, _, channels = pair.shape
    shipped = 64 if n >= 256 else 32
    tile = max(16, min(tuning.choice(NAME, "tile", shipped), tl.next_pow2(n)))  # dot needs >= 16
    # The contraction's step: the output tile unless tuned narrower (a (T, K) and a (K, T) operand
    # tile per pipeline stage instead of two (T, T) ones); it divides the tile.
    tile_k = min(tuning.choice(NAME, "tile_k", tile), tile)
    if tile_k < 16 or tile % tile_k:
        raise ValueError(f"{NAME}: tile_k {tile_k} must be >= 16 and divide the tile {tile}")
    strided = tuning.choice(NAME, "layout", "channel_major") == "strided"
    n_pad = tl.cdiv(n, tile) * tile
    # Layout only: channel-major pair (unless strided); zero padding (masked out) to whole tiles.
    pair_t = pair if strided else jnp.transpose(pair, (2, 0, 1))
    if n_pad != n:
        pad = (0, n_pad - n)
        pair_t = jnp.pad(pair_t, (pad, pad, (0, 0)) if strided else ((0, 0), pad, pad))
        mask = jnp.pad(mask, (pad, pad))
    if strided:
        out_shape, out_block = (n_pad, n_pad, channels), pl.BlockSpec((tile, tile, None), lambda c, i, j: (i, j, c))
    else:
        out_shape, out_block = (channels, n_pad, n_pad), pl.BlockSpec((None, tile, tile), lambda c, i, j: (c, i, j))
    passes = tuning.choice(NAME, "passes", 3)
    body = functools.partial(_body, tile=tile, tile_k=tile_k, n=n_pad, passes=passes, strided=strided)
    operands, in_specs = (pair_t, mask), [pl.BlockSpec(memory_space=pl.ANY)] * 2
    if tuning.choice(NAME, "split", "registers") == "pass":
        if strided or passes != 3 or pair.dtype != jnp.float32:
            raise ValueError(f"{NAME}: split 'pass' takes float32 pair, three passes and the channel-major "
                             f"layout (got {pair.dtype}, passes={passes}, strided={strided})")
        body = functools.partial(_presplit_body, tile=tile, tile_k=tile_k, n=n_pad)
        operands = (*_split_pass(pair_t, mask, tile), pair_t)
        in_specs = [pl.BlockSpec(memory_space=pl.ANY)] * 2 + [out_block]
    out = pl.pallas_call(
        body,
        out_shape=jax.ShapeDtypeStruct(out_shape, pair.dtype),
        grid=(channels, n_pad // tile, n_pad // tile),
        in_specs=in_specs,
        out_specs=out_block,
        compiler_params=tl.triton_params(
            num_warps=tuning.choice(NAME, "num_warps", 8 if tile == 64 else 4),
            num_stages=tuning.choice(NAME, "num_stages", 2)),
        name=NAME,
    )(*operands)
    if strided:
        return out if n_pad == n else out[:n, :n]
    if n_pad != n:
        out = out[:, :n, :n]
    return jnp.transpose(out, (1, 2, 0))


BACKENDS = {"mosaic_gpu": mosaic_triangle.triangle_update, "triton": kernel}


def flops(shapes):
    n, _, channels = shapes["pair"]
    return 2 * n**3 * channels + n * n * channels  # contraction + residual


def bytes_moved(shapes, itemsize=4):
    # pair read and the output written once, the (float) mask read once, floats at `itemsize`
    # bytes (4 at float32, 2 at bfloat16/float16).
    n, _, channels = shapes["pair"]
    return itemsize * (2 * n * n * channels + n * n)
