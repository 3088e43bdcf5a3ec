"""batch_norm_1d: gamma * (x - mean0) / sqrt(var0 + 1e-5) + beta, statistics over axis 0.

Two pallas_calls, x read twice (statistics must be complete before any output). The first
splits the rows into <= 16 chunks per 64-column strip; each program walks its chunk in (128, 64)
tiles, merging per-tile centred moments (mean, M2) with Chan's formula: two-pass accuracy from
one read. The second streams (256, 64) tiles of x, merges the strip's partial moments in
registers and writes gamma * (x - mean) * rsqrt(var + eps) + beta. Ragged edges are masked.
No dot, no TF32.

Pivot-shifted sums: each column is summed as s = x - p, p its first row x[0] (exact while x
is within a factor of two of p, Sterbenz); the partial means are means of s, and the output is
(x - p - mean(s)) * scale + beta. An offset of 1e3 then leaves the mean exact to f32 rounding
of O(1) values; a plain f32 sum of ~1e3 values would carry ~1e-4 into every output. Both calls
read the strip's pivot row (one (1, 64) load per program, one pivot for all chunks).
Any float dtype: loads are widened to float32 (moments are float32 in memory), the output is
rounded once to x's dtype.

Mosaic GPU (the preferred backend, kernels/mosaic_columns.py): the same two passes as two
plgpu.kernels, TMA-pipelined (strip, row part) tiles, Welford moments per register element.
"""

import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

from pallasbench import task as tl
from pallasbench.kernels import mosaic_columns

NAME = "batch_norm_1d"
LEVEL = 1
CATEGORY = "normalization"
INPUTS = (tl.Input("x", tl.REAL), tl.Input("gamma", tl.REAL, weight=True), tl.Input("beta", tl.REAL, weight=True))
SHAPES = tl.sizes(medium={"x": (4096, 1024), "gamma": (1024,), "beta": (1024,)})
TOLERANCE = tl.ELEMENTWISE
USES_TF32 = False
ORDER_DEPENDENT = False
# Stress: the statistics run over axis 0, so the offset is one constant per column.
STRESS = tl.stress_cases("tiny", "large", "offset", offset_input="x", offset_axis=0,
                         degenerate=tl.NO_DISCRETE_INPUT, distinct=tl.NO_DISCRETE_INPUT)

EPS = 1e-5
# Elements one program loads at once: the shared block budget (8K float32, 8 warps).
TILE = tl.DEFAULT_BLOCK_BYTES // 4
# Column strip width: 256-byte contiguous row segments, and enough strips to fill the GPU.
STRIP = 64
# Partial moments per strip: few enough that every output tile can merge them in registers.
MAX_PARTS = 16
# Rows of one output tile (256 x 64 = 16K elements over 8 warps): merging the partials costs
# at most 2 x 16 x 64 extra loads per tile.
OUT_ROWS = 256


def make_inputs(rng, shapes):
    return tuple(tl.normal(rng, shapes[name]) for name in ("x", "gamma", "beta"))


def reference(x, gamma, beta):
    mean = jnp.mean(x, axis=0)
    var = jnp.var(x, axis=0)  # biased
    return gamma * (x - mean) / jnp.sqrt(var + EPS) + beta


def _masked_load(ref, row0, rows, col0, cols, exact):
    """The block/tile `ref` as float32, with lanes outside the rows x cols array read as 0.

    Edge blocks of a Triton kernel would read undefined memory: the mask keeps that memory
    untouched and out of the sums. `exact` (static) says the tile lies inside the array.
    """
    if exact:
        return ref[...].astype(jnp.float32)
    r = row0 + lax.broadcasted_iota(jnp.int32, ref.shape, 0)
    c = col0 + lax.broadcasted_iota(jnp.int32, ref.shape, 1)
    return pltriton.load(ref, mask=(r < rows) & (c < cols), other=0.0).astype(jnp.float32)


def _cols_mask(shape, col0, cols):
    return col0 + lax.broadcasted_iota(jnp.int32, shape, len(shape) - 1) < cols


def _stats_body(x_ref, p_ref, mean_ref, m2_ref, *, rows, cols, tile_rows):
    """Mean of x - p and M2 (sum of squared deviations) of one chunk of rows of a column strip."""
    chunk, bc = x_ref.shape
    row0 = pl.program_id(0) * chunk
    col0 = pl.program_id(1) * bc
    full_rows = rows % chunk == 0  # static: every tile of every chunk is full
    exact = full_rows and cols % bc == 0
    p = _masked_load(p_ref, 0, rows, col0, cols, cols % bc == 0)  # (1, bc) pivot row x[0]

    def tile_moments(t):
        tile = x_ref if tile_rows == chunk else x_ref.at[pl.ds(t * tile_rows, tile_rows), :]
        start = row0 + t * tile_rows
        x = _masked_load(tile, start, rows, col0, cols, exact)
        if full_rows:
            n = jnp.float32(tile_rows)
            s = x - p
            mean = jnp.sum(s, axis=0, keepdims=True) * (1.0 / tile_rows)
            d = s - mean
        else:
            n = jnp.clip(rows - start, 0, tile_rows).astype(jnp.float32)
            inside = start + lax.broadcasted_iota(jnp.int32, x.shape, 0) < rows
            s = jnp.where(inside, x - p, 0.0)  # padding rows read 0: 0 - p stays out of the sum
            mean = jnp.sum(s, axis=0, keepdims=True) / jnp.maximum(n, 1.0)
            d = jnp.where(inside, s - mean, 0.0)  # padding rows stay out of M2
        return n, mean, jnp.sum(d * d, axis=0, keepdims=True)

    def merge(t, acc):
        # Chan et al.: merging centred moments keeps the variance free of cancellation.
        n_a, mean_a, m2_a = acc
        n_b, mean_b, m2_b = tile_moments(t)
        n = n_a + n_b  # >= 1: every chunk starts inside the array
        w = n_b / n
        delta = mean_b - mean_a
        return n, mean_a + delta * w, m2_a + m2_b + delta * delta * (n_a * w)

    tiles = chunk // tile_rows
    _, mean, m2 = (tile_moments(0) if tiles == 1
                   else lax.fori_loop(1, tiles, merge, tile_moments(0)))
    if cols % bc == 0:
        mean_ref[...] = mean
        m2_ref[...] = m2
    else:
        mask = _cols_mask(mean.shape, col0, cols)
        pltriton.store(mean_ref, mean, mask=mask)
        pltriton.store(m2_ref, m2, mask=mask)


def _normalize_body(x_ref, p_ref, mean_ref, m2_ref, g_ref, b_ref, o_ref, *, rows, cols, parts,
                    chunk):
    """Merge the strip's partial moments, then gamma * (x - p - mean) * rsqrt(var + eps) + beta
    (mean: of x - p)."""
    br, bc = x_ref.shape
    slots = mean_ref.shape[0]
    row0 = pl.program_id(0) * br
    col0 = pl.program_id(1) * bc
    exact_cols = cols % bc == 0

    part_mean = _masked_load(mean_ref, 0, parts, col0, cols, parts == slots and exact_cols)
    part_m2 = _masked_load(m2_ref, 0, parts, col0, cols, parts == slots and exact_cols)
    # Rows behind each partial (0 for padding slots, which then drop out of every sum).
    p = lax.broadcasted_iota(jnp.int32, (slots, 1), 0)
    n = jnp.clip(rows - p * chunk, 0, chunk).astype(jnp.float32)
    mean = jnp.sum(n * part_mean, axis=0, keepdims=True) / rows
    dev = part_mean - mean
    m2 = jnp.sum(part_m2, axis=0, keepdims=True) + jnp.sum(n * dev * dev, axis=0, keepdims=True)
    if exact_cols:
        gamma, beta = g_ref[...], b_ref[...]
    else:
        mask = _cols_mask((bc,), col0, cols)
        gamma = pltriton.load(g_ref, mask=mask, other=0.0)
        beta = pltriton.load(b_ref, mask=mask, other=0.0)
    gamma, beta = gamma.astype(jnp.float32), beta.astype(jnp.float32)
    scale = gamma[None, :] * lax.rsqrt(m2 / rows + EPS)

    exact = rows % br == 0 and exact_cols
    x = _masked_load(x_ref, row0, rows, col0, cols, exact)
    p = _masked_load(p_ref, 0, rows, col0, cols, exact_cols)
    out = ((x - p - mean) * scale + beta[None, :]).astype(o_ref.dtype)
    if exact:
        o_ref[...] = out
    else:
        r = row0 + lax.broadcasted_iota(jnp.int32, out.shape, 0)
        pltriton.store(o_ref, out, mask=(r < rows) & _cols_mask(out.shape, col0, cols))


def kernel(x, gamma, beta):
    rows, cols = x.shape
    bc = min(tl.next_pow2(cols), STRIP)
    tile_rows = min(tl.next_pow2(rows), TILE // bc)
    tiles = tl.cdiv(rows, tile_rows)
    # Tiles per chunk: a power of two (the chunk is a block), the chunk within 2^20 elements.
    per_chunk = min(tl.next_pow2(tl.cdiv(tiles, MAX_PARTS)),
                    tl.MAX_BLOCK_ELEMENTS // (tile_rows * bc))
    chunk = per_chunk * tile_rows
    parts = tl.cdiv(rows, chunk)
    strips = tl.cdiv(cols, bc)

    moments = jax.ShapeDtypeStruct((parts, cols), jnp.float32)
    part_spec = pl.BlockSpec((1, bc), lambda i, j: (i, j))
    pivot = pl.BlockSpec((1, bc), lambda i, j: (0, j))  # row 0 of x: every chunk's shift
    part_mean, part_m2 = pl.pallas_call(
        functools.partial(_stats_body, rows=rows, cols=cols, tile_rows=tile_rows),
        out_shape=(moments, moments),
        grid=(parts, strips),
        in_specs=[pl.BlockSpec((chunk, bc), lambda i, j: (i, j)), pivot],
        out_specs=(part_spec, part_spec),
        compiler_params=tl.triton_params(num_warps=8 if tile_rows * bc >= TILE else 4,
                                         num_stages=1),
    )(x, x)

    br = min(tl.next_pow2(rows), OUT_ROWS)
    all_parts = pl.BlockSpec((tl.next_pow2(parts), bc), lambda i, j: (0, j))
    vec = pl.BlockSpec((bc,), lambda i, j: (j,))
    tile = pl.BlockSpec((br, bc), lambda i, j: (i, j))
    return pl.pallas_call(
        functools.partial(_normalize_body, rows=rows, cols=cols, parts=parts, chunk=chunk),
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(tl.cdiv(rows, br), strips),
        in_specs=[tile, pivot, all_parts, all_parts, vec, vec],
        out_specs=tile,
        compiler_params=tl.triton_params(num_warps=8 if br * bc >= TILE else 4, num_stages=1),
    )(x, x, part_mean, part_m2, gamma, beta)


# The Mosaic GPU implementation (plgpu.kernel, kernels/mosaic_columns.py): the preferred backend.
# It left BACKENDS after a bfloat16 race on the H100 (bench/results/2026-12-06-h200-backends):
# a cross-warp reduction's scratch reused emit_pipeline's released TMA ring while slower warps
# still read it; mosaic_columns._reuse_scratch orders the two.
BACKENDS = {"mosaic_gpu": mosaic_columns.KERNELS[NAME], "triton": kernel}


def flops(shapes):
    rows, cols = shapes["x"]
    # statistics: pivot shift, sum, centre, square-accumulate (5);
    # output: pivot shift, centre, scale, shift (4)
    return 9 * rows * cols


def bytes_moved(shapes, itemsize=4):
    # x read and the output written once, gamma and beta read once, floats at `itemsize` bytes
    # (4 at float32, 2 at bfloat16/float16).
    rows, cols = shapes["x"]
    return (2 * rows * cols + 2 * cols) * itemsize
