"""rmsnorm_residual: x / sqrt(mean(x^2) + 1e-5) + r over the last axis.

Memory-bound: x and r are each read once and the result written once. One program owns whole
rows (a power-of-two block; padded columns are zeros and add nothing to the sum of squares), so
the mean square, scaling and residual add all happen in registers. Rows per program are capped
to keep >= 256 programs.
"""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

from pallasbench import tasklib as tl

NAME = "rmsnorm_residual"
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
# square, sum, scale, + r
FLOPS_PER_ELEMENT = 4


def make_inputs(rng, shapes):
    return tl.normal(rng, shapes["x"]), tl.normal(rng, shapes["r"])


def reference(x, r):
    return x / jnp.sqrt(jnp.mean(x * x, axis=-1, keepdims=True) + EPS) + r


def _body(x_ref, r_ref, o_ref, *, cols):
    x = x_ref[...]
    inv = 1.0 / jnp.sqrt(jnp.sum(x * x, axis=1) / cols + EPS)
    o_ref[...] = x * inv[:, None] + r_ref[...]


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
        # >= 32 values per thread per input: wide loads, the row reduction stays in registers.
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
