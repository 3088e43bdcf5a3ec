"""reduce_max: max over the last axis of a float32 matrix.

Memory-bound row reduction. One program owns `br` whole rows (tl.row_block: 8K elements, the
row padded to a power of two) and reduces each row with one in-register max; rows wider than
8K elements are reduced tile by tile in a fori_loop. Ragged edges are masked to -inf before the
max. No dot, no TF32.
"""

import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from pallasbench import tasklib as tl

NAME = "reduce_max"
LEVEL = 1
CATEGORY = "reduce"
INPUTS = (tl.Input("x", tl.REAL),)
SHAPES = tl.sizes(medium={"x": (4096, 2048)})
TOLERANCE = tl.ELEMENTWISE
USES_TF32 = False
ORDER_DEPENDENT = False
STRESS = tl.stress("tiny", "large", offset=tl.NO_ROW_STATISTIC,
                   degenerate=tl.NO_DISCRETE_INPUT, distinct=tl.NO_DISCRETE_INPUT)

# Widest row tile one program reduces at once: the shared block budget (8K float32).
TILE = tl.DEFAULT_BLOCK_BYTES // 4


def make_inputs(rng, shapes):
    return (tl.normal(rng, shapes["x"]),)


def reference(x):
    return jnp.max(x, axis=-1)


def _max_body(x_ref, o_ref, *, rows, cols, width, tiles):
    br = x_ref.shape[0]
    row0 = pl.program_id(0) * br

    def tile_max(t):
        return jnp.max(tl.load_tile(x_ref, row0, rows, t * width, cols, width, other=-jnp.inf), axis=1)

    if tiles == 1:
        best = tile_max(0)
    else:
        best = lax.fori_loop(0, tiles, lambda t, acc: jnp.maximum(acc, tile_max(t)),
                             jnp.full((br,), -jnp.inf, jnp.float32))
    tl.store_rows(o_ref, best, row0, rows)


def kernel(x):
    rows, cols = x.shape
    br, bc = tl.row_block(rows, cols, x.dtype.itemsize)
    width = min(bc, TILE)
    body = functools.partial(_max_body, rows=rows, cols=cols, width=width,
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
    return rows * cols  # one comparison per element


def bytes_moved(shapes):
    rows, cols = shapes["x"]
    return (rows * cols + rows) * 4
