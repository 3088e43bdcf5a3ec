"""mse_loss: mean((pred - target)^2) over the last axis, one value per row.

Memory-bound row reduction: each program loads whole rows of both inputs (tl.row_block, 8K
elements a block, 8 warps), squares the difference and reduces the row in registers. Ragged edge
blocks (a row count or width the block does not tile) load and store through masks.
"""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

from pallasbench import tasklib as tl

NAME = "mse_loss"
LEVEL = 1
CATEGORY = "loss"
INPUTS = (tl.Input("pred", tl.REAL), tl.Input("target", tl.REAL))
SHAPES = tl.sizes(medium={"pred": (2048, 1024), "target": (2048, 1024)})
TOLERANCE = tl.ELEMENTWISE
USES_TF32 = False
ORDER_DEPENDENT = False
STRESS = tl.stress("tiny", "large", offset="not a loss over logits (TASKS.md offsets those only)",
                   degenerate=tl.NO_DISCRETE_INPUT, distinct=tl.NO_DISCRETE_INPUT)

BLOCK_BYTES = 32 * 1024  # per input: 8K f32, 32 a thread at 8 warps


def make_inputs(rng, shapes):
    return tl.normal(rng, shapes["pred"]), tl.normal(rng, shapes["target"])


def reference(pred, target):
    return jnp.mean((pred - target) ** 2, axis=-1)


def _body(p_ref, t_ref, o_ref, *, rows, cols):
    row0 = pl.program_id(0) * p_ref.shape[0]
    p, t = (tl.load_tile(r, row0, rows, 0, cols, r.shape[1], other=0.0) for r in (p_ref, t_ref))
    d = p - t
    tl.store_rows(o_ref, jnp.sum(d * d, axis=1) / cols, row0, rows)


def kernel(pred, target):
    rows, cols = pred.shape
    br, bc = tl.row_block(rows, cols, 4, BLOCK_BYTES)
    spec = pl.BlockSpec((br, bc), lambda i: (i, 0))
    return pl.pallas_call(
        functools.partial(_body, rows=rows, cols=cols),
        out_shape=jax.ShapeDtypeStruct((rows,), pred.dtype),
        grid=(tl.cdiv(rows, br),),
        in_specs=[spec, spec],
        out_specs=pl.BlockSpec((br,), lambda i: (i,)),
        compiler_params=tl.triton_params(num_warps=8, num_stages=1),
    )(pred, target)


def flops(shapes):
    rows, cols = shapes["pred"]
    return 3 * rows * cols + rows  # sub, square, add per element; one divide per row


def bytes_moved(shapes):
    rows, cols = shapes["pred"]
    return 4 * (2 * rows * cols + rows)
