"""cosine_sim: dot(x, y) / (|x| |y| + 1e-8) per row.

Memory-bound row reduction: each program loads whole rows of x and y (tl.row_block, 8K elements
a block, 8 warps) and forms the three row sums x.y, x.x, y.y in registers in one pass. Ragged
edge blocks (a row count or width the block does not tile) load and store through masks.
"""

import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

from pallasbench import tasklib as tl

NAME = "cosine_sim"
LEVEL = 1
CATEGORY = "loss"
INPUTS = (tl.Input("x", tl.REAL), tl.Input("y", tl.REAL))
SHAPES = tl.sizes(medium={"x": (2048, 1024), "y": (2048, 1024)})
TOLERANCE = tl.ELEMENTWISE
USES_TF32 = False
ORDER_DEPENDENT = False

EPS = 1e-8
BLOCK_BYTES = 32 * 1024  # per input: 8K f32, 32 a thread at 8 warps


def make_inputs(rng, shapes):
    return tl.normal(rng, shapes["x"]), tl.normal(rng, shapes["y"])


def reference(x, y):
    dot = jnp.sum(x * y, axis=-1)
    norms = jnp.sqrt(jnp.sum(x * x, axis=-1)) * jnp.sqrt(jnp.sum(y * y, axis=-1))
    return dot / (norms + EPS)


def _load(ref, mask, fill):
    """The block; `fill` where mask is False (past the array's edge), memory left untouched."""
    return ref[...] if mask is None else pltriton.load(ref, mask=mask, other=fill)


def _store(ref, value, mask):
    """Writes the block except where mask is False (past the array's edge)."""
    if mask is None:
        ref[...] = value
    else:
        pltriton.store(ref, value, mask=mask)


def _edge_masks(shape, rows, cols):
    """(block mask, row mask) of this program's (br, bc) block, or None where the grid tiles the
    array exactly. Triton does not clip edge blocks: their loads and stores must be masked."""
    br, bc = shape
    row = pl.program_id(0) * br + lax.broadcasted_iota(jnp.int32, (br,), 0)
    row_mask = None if rows % br == 0 else row < rows
    if row_mask is None and cols == bc:
        return None, None
    col = lax.broadcasted_iota(jnp.int32, shape, 1)
    return (row[:, None] < rows) & (col < cols), row_mask


def _body(x_ref, y_ref, o_ref, *, rows, cols):
    mask, row_mask = _edge_masks(x_ref.shape, rows, cols)
    x, y = _load(x_ref, mask, 0.0), _load(y_ref, mask, 0.0)
    dot = jnp.sum(x * y, axis=1)
    norms = jnp.sqrt(jnp.sum(x * x, axis=1)) * jnp.sqrt(jnp.sum(y * y, axis=1))
    _store(o_ref, dot / (norms + EPS), row_mask)


def kernel(x, y):
    rows, cols = x.shape
    br, bc = tl.row_block(rows, cols, 4, BLOCK_BYTES)
    spec = pl.BlockSpec((br, bc), lambda i: (i, 0))
    return pl.pallas_call(
        functools.partial(_body, rows=rows, cols=cols),
        out_shape=jax.ShapeDtypeStruct((rows,), x.dtype),
        grid=(tl.cdiv(rows, br),),
        in_specs=[spec, spec],
        out_specs=pl.BlockSpec((br,), lambda i: (i,)),
        compiler_params=tl.triton_params(num_warps=8, num_stages=1),
    )(x, y)


def flops(shapes):
    rows, cols = shapes["x"]
    # three products and three adds per element; two sqrt, mul, add, divide per row
    return 6 * rows * cols + 5 * rows


def bytes_moved(shapes):
    rows, cols = shapes["x"]
    return 4 * (2 * rows * cols + rows)
