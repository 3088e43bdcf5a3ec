"""cosine_sim: dot(x, y) / (|x| |y| + 1e-8) per row.

Memory-bound row reduction: each program loads whole rows of x and y (tl.row_block, 8K elements
a block, 8 warps) and forms the three row sums x.y, x.x, y.y in registers in one pass. Ragged
edge blocks (a row count or width the block does not tile) load and store through masks.
"""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

from pallasbench import tasklib as tl

NAME = "cosine_sim"
LEVEL = 1
CATEGORY = "loss"
INPUTS = (tl.Input("x", tl.REAL), tl.Input("y", tl.REAL))
SHAPES = tl.sizes(medium={"x": (2048, 1024), "y": (2048, 1024)})
TOLERANCE = tl.ELEMENTWISE
USES_TF32 = False
ORDER_DEPENDENT = False
STRESS = tl.stress("tiny", "large", offset="not a loss over logits (TASKS.md offsets those only)",
                   degenerate=tl.NO_DISCRETE_INPUT, distinct=tl.NO_DISCRETE_INPUT)

EPS = 1e-8
BLOCK_BYTES = 32 * 1024  # per input: 8K f32, 32 a thread at 8 warps


def make_inputs(rng, shapes):
    return tl.normal(rng, shapes["x"]), tl.normal(rng, shapes["y"])


def reference(x, y):
    dot = jnp.sum(x * y, axis=-1)
    norms = jnp.sqrt(jnp.sum(x * x, axis=-1)) * jnp.sqrt(jnp.sum(y * y, axis=-1))
    return dot / (norms + EPS)


def _body(x_ref, y_ref, o_ref, *, rows, cols):
    row0 = pl.program_id(0) * x_ref.shape[0]
    x, y = (tl.load_tile(r, row0, rows, 0, cols, r.shape[1], other=0.0) for r in (x_ref, y_ref))
    dot = jnp.sum(x * y, axis=1)
    norms = jnp.sqrt(jnp.sum(x * x, axis=1)) * jnp.sqrt(jnp.sum(y * y, axis=1))
    tl.store_rows(o_ref, dot / (norms + EPS), row0, rows)


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
