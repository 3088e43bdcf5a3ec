"""pairwise_distance: out[i, j] = sqrt(sum_d (x[i, d] - x[j, d])^2 + 1e-8), (N, N).

Each program owns a (TILE, TILE) output tile and accumulates squared differences one feature
at a time (rank-1 updates from an x column of the row tile and of the column tile). Differences
are formed explicitly, in fp32: the |x|^2 + |y|^2 - 2 x.y form would cancel catastrophically
near the diagonal, and D is too small for tensor cores to pay off. bfloat16/float16 features are
widened to fp32 before the differences; the distance is rounded once to x's dtype.
"""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

from pallasbench import task as tl

NAME = "pairwise_distance"
LEVEL = 2
CATEGORY = "genomics"
INPUTS = (tl.Input("x", tl.REAL),)
SHAPES = tl.sizes(medium={"x": (256, 32)}, small={"x": (64, 16)}, large={"x": (1024, 64)})
TOLERANCE = tl.MATMUL
USES_TF32 = False
ORDER_DEPENDENT = False
STRESS = tl.stress_cases("tiny", "large", large_factor=1e3, offset=tl.NO_ROW_STATISTIC,
                         degenerate=tl.NO_DISCRETE_INPUT, distinct=tl.NO_DISCRETE_INPUT)

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


def kernel(x):
    n, d = x.shape
    tile = min(_TILE, tl.next_pow2(n))
    rows, feats = tl.cdiv(n, tile) * tile, tl.next_pow2(d)
    if (rows, feats) != (n, d):  # layout only: zero features add nothing, extra rows are cut
        x = jnp.pad(x, ((0, rows - n), (0, feats - d)))
    out = pl.pallas_call(
        functools.partial(_body, features=d),
        out_shape=jax.ShapeDtypeStruct((rows, rows), x.dtype),
        grid=(rows // tile, rows // tile),
        in_specs=[pl.BlockSpec((tile, feats), lambda i, j: (i, 0)),
                  pl.BlockSpec((tile, feats), lambda i, j: (j, 0))],
        out_specs=pl.BlockSpec((tile, tile), lambda i, j: (i, j)),
        compiler_params=tl.triton_params(num_warps=4, num_stages=1),
    )(x, x)
    return out if rows == n else out[:n, :n]


def flops(shapes):
    n, d = shapes["x"]
    return n * n * (3 * d + 2)  # sub, mul, add per feature; eps add and sqrt per pair


def bytes_moved(shapes, itemsize=4):
    # x read once and the (N, N) distances written, floats at `itemsize` bytes (4 at float32,
    # 2 at bfloat16/float16).
    n, d = shapes["x"]
    return itemsize * (n * d + n * n)
