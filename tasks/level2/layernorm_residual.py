"""layernorm_residual: (x - mean) / sqrt(var + 1e-5) + r over the last axis, no affine.

Memory-bound: x and r are each read once and the result written once. One program owns whole
rows (a power-of-two block, padded columns masked out of the variance), so mean, variance and
the residual add all happen in registers. Rows per program are capped to keep >= 256 programs.

Pivot-shifted sums: each row is summed as s = x - p, p its first element, and written as
(s - mean(s)) * rstd. An offset of 1e3 then leaves the mean exact to f32 rounding of O(1)
values; a plain f32 sum of ~1e3 values would carry ~1e-4 into every output.
"""

import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from pallasbench import tasklib as tl

NAME = "layernorm_residual"
LEVEL = 2
CATEGORY = "norm_residual"
INPUTS = (tl.Input("x", tl.REAL), tl.Input("r", tl.REAL))
SHAPES = tl.sizes(medium={"x": (2048, 1024), "r": (2048, 1024)})
TOLERANCE = tl.ELEMENTWISE
USES_TF32 = False
ORDER_DEPENDENT = False
STRESS = tl.stress("tiny", "large", "offset", offset_input="x",
                   degenerate=tl.NO_DISCRETE_INPUT, distinct=tl.NO_DISCRETE_INPUT)

EPS = 1e-5
# Programs to keep in flight: about two per H200 SM (132), so every SM streams rows.
MIN_PROGRAMS = 256
# x-p, sum, -mean, square, sum, scale, + r
FLOPS_PER_ELEMENT = 7


def make_inputs(rng, shapes):
    return tl.normal(rng, shapes["x"]), tl.normal(rng, shapes["r"])


def reference(x, r):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean((x - mean) ** 2, axis=-1, keepdims=True)
    return (x - mean) / jnp.sqrt(var + EPS) + r


def _body(x_ref, r_ref, o_ref, *, cols):
    x = x_ref[...]
    s = x - x_ref[:, :1]  # pivot: each row's first element (exact near it, Sterbenz)
    if x.shape[1] != cols:  # padded columns are zeros: 0 - p must stay out of the sums
        inside = lax.broadcasted_iota(jnp.int32, x.shape, 1) < cols
        s = jnp.where(inside, s, 0.0)
    mean = jnp.sum(s, axis=1) / cols
    d = s - mean[:, None]
    if x.shape[1] != cols:  # padded columns would add mean^2 each to the variance
        d = jnp.where(inside, d, 0.0)
    inv = 1.0 / jnp.sqrt(jnp.sum(d * d, axis=1) / cols + EPS)
    o_ref[...] = d * inv[:, None] + r_ref[...]


def kernel(x, r):
    rows, cols = x.shape
    br, bc = tl.row_block(rows, cols, x.dtype.itemsize)
    br = max(1, min(br, tl.prev_pow2(rows // MIN_PROGRAMS)))
    prows = tl.cdiv(rows, br) * br
    if (prows, bc) != (rows, cols):  # whole blocks only: the GPU does not mask edge stores
        pad = ((0, prows - rows), (0, bc - cols))
        x, r = jnp.pad(x, pad), jnp.pad(r, pad)
    tile = pl.BlockSpec((br, bc), lambda i: (i, 0))
    out = pl.pallas_call(
        functools.partial(_body, cols=cols),
        out_shape=jax.ShapeDtypeStruct((prows, bc), x.dtype),
        grid=(prows // br,),
        in_specs=[tile, tile],
        out_specs=tile,
        # >= 32 values per thread per input: wide loads, both row reductions stay in registers.
        compiler_params=tl.triton_params(num_warps=min(8, max(1, br * bc // 1024)),
                                         num_stages=1),
        name=NAME,
    )(x, r)
    return out[:rows, :cols]


def flops(shapes):
    rows, cols = shapes["x"]
    return FLOPS_PER_ELEMENT * rows * cols


def bytes_moved(shapes):
    rows, cols = shapes["x"]
    return 3 * rows * cols * 4
