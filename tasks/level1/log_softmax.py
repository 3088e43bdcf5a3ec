"""log_softmax over the last axis of a float32 matrix.

Memory-bound: one read and one write per element. One program owns `br` whole rows
(tl.row_block: 8K elements, the row padded to a power of two) and keeps them in registers:
row max, exp-sum, log and the shifted write are fused, so x is read once. Rows wider than 8K
elements take two passes over column tiles (online max/sum, then the write). Masked lanes read
as -inf (exp gives 0). No dot, no TF32.
"""

import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from pallasbench import tasklib as tl

NAME = "log_softmax"
LEVEL = 1
CATEGORY = "softmax"
INPUTS = (tl.Input("x", tl.REAL),)
SHAPES = tl.sizes(medium={"x": (2048, 2048)})
TOLERANCE = tl.ELEMENTWISE
USES_TF32 = False
ORDER_DEPENDENT = False
STRESS = tl.stress("tiny", "large", "offset", offset_input="x",
                   degenerate=tl.NO_DISCRETE_INPUT, distinct=tl.NO_DISCRETE_INPUT)

# Widest row tile one program holds in registers: the shared block budget (8K float32).
TILE = tl.DEFAULT_BLOCK_BYTES // 4


def make_inputs(rng, shapes):
    return (tl.normal(rng, shapes["x"]),)


def reference(x):
    return jax.nn.log_softmax(x, axis=-1)


def _log_softmax_rows(x_ref, o_ref, *, rows, cols):
    """Whole rows in registers: one read, one write."""
    br, bc = x_ref.shape
    row0 = pl.program_id(0) * br
    x = tl.load_tile(x_ref, row0, rows, 0, cols, bc, other=-jnp.inf)
    shifted = x - jnp.max(x, axis=1, keepdims=True)
    lse = jnp.log(jnp.sum(jnp.exp(shifted), axis=1, keepdims=True))
    tl.store_tile(o_ref, shifted - lse, row0, rows, 0, cols)


def _log_softmax_tiled(x_ref, o_ref, *, rows, cols, width, tiles):
    """Rows wider than a tile: online max/sum over column tiles, then a write pass."""
    br = x_ref.shape[0]
    row0 = pl.program_id(0) * br

    def stats(t, carry):
        m, s = carry
        x = tl.load_tile(x_ref, row0, rows, t * width, cols, width, other=-jnp.inf)
        m_new = jnp.maximum(m, jnp.max(x, axis=1, keepdims=True))
        s = s * jnp.exp(m - m_new) + jnp.sum(jnp.exp(x - m_new), axis=1, keepdims=True)
        return m_new, s

    m, s = lax.fori_loop(0, tiles, stats, (jnp.full((br, 1), -jnp.inf, jnp.float32),
                                           jnp.zeros((br, 1), jnp.float32)))
    lse = jnp.log(s)

    def write(t, carry):
        x = tl.load_tile(x_ref, row0, rows, t * width, cols, width, other=-jnp.inf)
        tl.store_tile(o_ref, (x - m) - lse, row0, rows, t * width, cols)
        return carry

    lax.fori_loop(0, tiles, write, 0)


def kernel(x):
    rows, cols = x.shape
    br, bc = tl.row_block(rows, cols, x.dtype.itemsize)
    width = min(bc, TILE)
    if width == bc:
        body = functools.partial(_log_softmax_rows, rows=rows, cols=cols)
    else:
        body = functools.partial(_log_softmax_tiled, rows=rows, cols=cols, width=width,
                                 tiles=tl.cdiv(cols, width))
    spec = pl.BlockSpec((br, bc), lambda i: (i, 0))
    return pl.pallas_call(
        body,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(tl.cdiv(rows, br),),
        in_specs=[spec],
        out_specs=spec,
        # 8 warps for an 8K-element tile: 32 values (8 vector loads) in flight per thread.
        compiler_params=tl.triton_params(num_warps=8 if br * width >= TILE else 4,
                                         num_stages=1),
    )(x)


def flops(shapes):
    rows, cols = shapes["x"]
    return 5 * rows * cols + rows  # max, subtract, exp, sum, subtract; one log per row


def bytes_moved(shapes):
    rows, cols = shapes["x"]
    return 2 * rows * cols * 4
