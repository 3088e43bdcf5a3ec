"""reduce_mean: mean over the last axis of a float32 matrix.

Memory-bound row reduction. One program owns `br` whole rows (tl.row_block: 8K elements, the
row padded to a power of two) and reduces each row with one in-register tree sum; rows wider
than 8K elements are summed tile by tile in a fori_loop (a tree per tile, few sequential adds).
Ragged edges are masked to 0 before summing; the row sum is divided by the true width. No dot,
no TF32.
"""

import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from pallasbench import tasklib as tl

NAME = "reduce_mean"
LEVEL = 1
CATEGORY = "reduce"
INPUTS = (tl.Input("x", tl.REAL),)
SHAPES = tl.sizes(medium={"x": (4096, 2048)})
TOLERANCE = tl.ELEMENTWISE
USES_TF32 = False
ORDER_DEPENDENT = False
STRESS = tl.stress("tiny", "large", offset=tl.NO_ROW_STATISTIC,
                   degenerate=tl.NO_DISCRETE_INPUT, distinct=tl.NO_DISCRETE_INPUT)
# Sums of thousands of N(0,1) terms: an f32 reference's own rounding error (~1e-5 near zero)
# is of the order of the tolerance, so the harness checks against a float64 reference.
REFERENCE_FLOAT64 = True

# Widest row tile one program reduces at once: the shared block budget (8K float32).
TILE = tl.DEFAULT_BLOCK_BYTES // 4


def make_inputs(rng, shapes):
    return (tl.normal(rng, shapes["x"]),)


def reference(x):
    return jnp.mean(x, axis=-1)


def _mean_body(x_ref, o_ref, *, rows, cols, width, tiles):
    br = x_ref.shape[0]
    row0 = pl.program_id(0) * br

    def tile_sum(t):
        return jnp.sum(tl.load_tile(x_ref, row0, rows, t * width, cols, width, other=0.0), axis=1)

    if tiles == 1:
        total = tile_sum(0)
    else:
        total = lax.fori_loop(0, tiles, lambda t, acc: acc + tile_sum(t),
                              jnp.zeros((br,), jnp.float32))
    tl.store_rows(o_ref, total / cols, row0, rows)


def kernel(x):
    rows, cols = x.shape
    br, bc = tl.row_block(rows, cols, x.dtype.itemsize)
    width = min(bc, TILE)
    body = functools.partial(_mean_body, rows=rows, cols=cols, width=width,
                             tiles=tl.cdiv(cols, width))
    return pl.pallas_call(
        body,
        out_shape=jax.ShapeDtypeStruct((rows,), x.dtype),
        grid=(tl.cdiv(rows, br),),
        in_specs=[pl.BlockSpec((br, bc), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((br,), lambda i: (i,)),
        # 8 warps for an 8K-element tile: 32 values (8 vector loads) in flight per thread.
        compiler_params=tl.triton_params(num_warps=8 if br * width >= TILE else 4,
                                         num_stages=1),
    )(x)


def flops(shapes):
    rows, cols = shapes["x"]
    return rows * cols + rows  # the adds, one divide per row


def bytes_moved(shapes):
    rows, cols = shapes["x"]
    return (rows * cols + rows) * 4
