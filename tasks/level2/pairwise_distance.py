"""pairwise_distance: out[i, j] = sqrt(sum_d (x[i, d] - x[j, d])^2 + 1e-8), (N, N).

Each program owns a (TILE_M, TILE_N) output tile. The default form ("diff") accumulates squared
differences one feature at a time (rank-1 updates from an x column of the row tile and of the
column tile), formed explicitly in fp32. bfloat16/float16 features are widened to fp32 before the
differences; the distance is rounded once to x's dtype.

The tunable "dot" form computes |x_i|^2 + |x_j|^2 - 2 x_i.x_j with the cross term as one tile
dot (fp32 accumulation): tensor cores at bfloat16/float16, whose products are exact in fp32;
at float32 the dot is pinned to IEEE fp32 (no TF32: USES_TF32 is False). The form cancels where
rows nearly coincide: the diagonal (a row with itself) is pinned to exactly zero before the eps,
the rounded difference is clamped at zero, and rows that differ by less than ~sqrt(ulp)*|x| lose
their small distance (absolute error ~ sqrt(ulp(|x|^2)); the suite's inputs have none).
Tiles, warps and stages are tunable (tuning.choice) so a tuning run can trade tile size for
programs on a large GPU.

Mosaic GPU (the preferred backend, kernels/mosaic_pairwise.py): the "diff" form. CTA (i, j)
brings its two row blocks into SMEM by TMA, transposes them in the kernel (registers, then a
transposed SMEM view) so each feature is a contiguous SMEM row, and accumulates the squared
differences feature by feature in float32 registers over its (rows, cols) tile; the square root
is a Newton-refined rsqrt. Features under 32 (SMALL) are read in 32-wide TMA boxes whose columns
past the array TMA fills with zeros (never used).
"""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

from pallasbench import task as tl
from pallasbench.kernels import mosaic_pairwise
from pallasbench.task import tuning
from pallasbench.task.families.matmul import ORDER_DEPENDENT, STRESS

NAME = "pairwise_distance"
LEVEL = 2
CATEGORY = "genomics"
INPUTS = (tl.Input("x", tl.REAL),)
SHAPES = tl.sizes(medium={"x": (256, 32)}, small={"x": (64, 16)}, large={"x": (1024, 64)})
TOLERANCE = tl.MATMUL
USES_TF32 = False

EPS = 1e-8
_TILE = 64  # (64, 64) fp32 accumulator: 32 registers per thread at 4 warps


def make_inputs(rng, shapes):
    return (tl.normal(rng, shapes["x"]),)


def reference(x):
    diff = x[:, None, :] - x[None, :, :]
    return jnp.sqrt(jnp.sum(diff * diff, axis=-1) + EPS)


def _body(xi_ref, xj_ref, o_ref, *, features):
    acc = jnp.zeros((xi_ref.shape[0], xj_ref.shape[0]), jnp.float32)
    for d in range(features):
        diff = xi_ref[:, d].astype(jnp.float32)[:, None] - xj_ref[:, d].astype(jnp.float32)[None, :]
        acc += diff * diff
    o_ref[...] = jnp.sqrt(acc + EPS).astype(o_ref.dtype)


def _dot_body(xi_ref, xj_ref, o_ref):
    tm, tn = xi_ref.shape[0], xj_ref.shape[0]
    xi, xj = xi_ref[...], xj_ref[...]
    # bf16/f16 operands: tensor-core dot, exact products, fp32 sums. f32: IEEE fp32, not TF32.
    precision = jax.lax.Precision.HIGHEST if xi.dtype == jnp.float32 else None
    cross = jax.lax.dot_general(xi, xj, (((1,), (1,)), ((), ())), precision=precision,
                                preferred_element_type=jnp.float32)
    xi32, xj32 = xi.astype(jnp.float32), xj.astype(jnp.float32)
    sq_i = jnp.sum(xi32 * xi32, axis=1)[:, None]
    sq_j = jnp.sum(xj32 * xj32, axis=1)[None, :]
    d2 = jnp.maximum(sq_i + sq_j - 2.0 * cross, 0.0)
    # A row against itself: the two rounded sums do not cancel exactly; its distance is 0.
    r = pl.program_id(0) * tm + jax.lax.broadcasted_iota(jnp.int32, (tm, tn), 0)
    c = pl.program_id(1) * tn + jax.lax.broadcasted_iota(jnp.int32, (tm, tn), 1)
    d2 = jnp.where(r == c, 0.0, d2)
    o_ref[...] = jnp.sqrt(d2 + EPS).astype(o_ref.dtype)


# Chosen on the H200 by bench/probe.py (bench/results/2026-12-03-h200-kernels/).
TUNED = tuning.Tuned(gpu="NVIDIA H200", source="bench/results/2026-12-03-h200-kernels", configs={
    "medium": {"float32": {"form": 'dot', "tile_m": 32, "tile_n": 32}, "bfloat16": {"form": 'dot', "tile_m": 32, "tile_n": 32}},
    "large": {"float32": {"form": 'dot', "tile_m": 64, "tile_n": 128, "num_warps": 8}, "bfloat16": {"form": 'dot'}},
})


@tuning.tuned_kernel(NAME, SHAPES, INPUTS, TUNED)
def kernel(x):
    n, d = x.shape
    form = tuning.choice(NAME, "form", "diff")
    # Tensor-core dots need every dot dimension >= 16 (zero features and rows are harmless).
    least = 16 if form == "dot" else 1
    tm = min(tuning.choice(NAME, "tile_m", _TILE), max(least, tl.next_pow2(n)))
    tn = min(tuning.choice(NAME, "tile_n", _TILE), max(least, tl.next_pow2(n)))
    tile = max(tm, tn)  # rows padded to both tiles (powers of two: the larger divides)
    rows, feats = tl.cdiv(n, tile) * tile, max(least, tl.next_pow2(d))
    if (rows, feats) != (n, d):  # layout only: zero features add nothing, extra rows are cut
        x = jnp.pad(x, ((0, rows - n), (0, feats - d)))
    body = _dot_body if form == "dot" else functools.partial(_body, features=d)
    out = pl.pallas_call(
        body,
        out_shape=jax.ShapeDtypeStruct((rows, rows), x.dtype),
        grid=(rows // tm, rows // tn),
        in_specs=[pl.BlockSpec((tm, feats), lambda i, j: (i, 0)),
                  pl.BlockSpec((tn, feats), lambda i, j: (j, 0))],
        out_specs=pl.BlockSpec((tm, tn), lambda i, j: (i, j)),
        compiler_params=tl.triton_params(num_warps=tuning.choice(NAME, "num_warps", 4),
                                         num_stages=tuning.choice(NAME, "num_stages", 1)),
    )(x, x)
    return out if rows == n else out[:n, :n]


# The Mosaic GPU implementation (plgpu.kernel, kernels/mosaic_pairwise.py): the preferred backend.
BACKENDS = {"mosaic_gpu": mosaic_pairwise.KERNELS[NAME], "triton": kernel}


def flops(shapes):
    n, d = shapes["x"]
    return n * n * (3 * d + 2)  # sub, mul, add per feature; eps add and sqrt per pair


def bytes_moved(shapes, itemsize=4):
    # x read once and the (N, N) distances written, floats at `itemsize` bytes (4 at float32,
    # 2 at bfloat16/float16).
    n, d = shapes["x"]
    return itemsize * (n * d + n * n)
