"""cross_entropy: -log_softmax(logits)[i, label_i], one loss per row.

Memory-bound row reduction: each program loads whole rows (tl.row_block, 4K elements a block,
4 warps) with their labels, forms max, sum(exp(x - max)) and the label's shifted logit (a
compare-and-select against a column iota: no gather) in registers, and writes one value per row.
Ragged edge blocks (a row count or width the block does not tile) load and store through masks.
"""

import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

from pallasbench import tasklib as tl

NAME = "cross_entropy"
LEVEL = 1
CATEGORY = "loss"
INPUTS = (tl.Input("logits", tl.REAL), tl.Input("labels", tl.DISCRETE))
# The class count (512) is fixed; only the number of rows scales.
SHAPES = tl.sizes(medium={"logits": (1024, 512), "labels": (1024,)},
                  small={"logits": (128, 512), "labels": (128,)},
                  large={"logits": (4096, 512), "labels": (4096,)})
TOLERANCE = tl.ELEMENTWISE
USES_TF32 = False
ORDER_DEPENDENT = False

BLOCK_BYTES = 16 * 1024  # 4K f32 a block: 32 a thread at 4 warps, 128+ programs at MEDIUM


def make_inputs(rng, shapes):
    logits = tl.normal(rng, shapes["logits"])
    return logits, tl.ids(rng, shapes["labels"], shapes["logits"][1])


def reference(logits, labels):
    logp = jax.nn.log_softmax(logits, axis=-1)
    return -jnp.take_along_axis(logp, labels[:, None], axis=-1)[:, 0]


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


def _body(x_ref, label_ref, o_ref, *, rows, cols):
    mask, row_mask = _edge_masks(x_ref.shape, rows, cols)
    x = _load(x_ref, mask, -jnp.inf)  # exp(-inf) = 0: a masked column adds nothing
    labels = _load(label_ref, row_mask, 0)
    z = x - jnp.max(x, axis=1, keepdims=True)
    lse = jnp.log(jnp.sum(jnp.exp(z), axis=1))
    # The label's logit: exactly one column matches, so the masked sum is exact.
    col = lax.broadcasted_iota(jnp.int32, x.shape, 1)
    z_label = jnp.sum(jnp.where(col == labels[:, None], z, 0.0), axis=1)
    _store(o_ref, lse - z_label, row_mask)


def kernel(logits, labels):
    rows, cols = logits.shape
    br, bc = tl.row_block(rows, cols, 4, BLOCK_BYTES)
    row_spec = pl.BlockSpec((br,), lambda i: (i,))
    return pl.pallas_call(
        functools.partial(_body, rows=rows, cols=cols),
        out_shape=jax.ShapeDtypeStruct((rows,), logits.dtype),
        grid=(tl.cdiv(rows, br),),
        in_specs=[pl.BlockSpec((br, bc), lambda i: (i, 0)), row_spec],
        out_specs=row_spec,
        compiler_params=tl.triton_params(num_warps=4, num_stages=1),
    )(logits, labels)


def flops(shapes):
    rows, cols = shapes["logits"]
    # max, subtract, exp, add per element (the label select is bookkeeping); log, sub per row
    return 4 * rows * cols + 2 * rows


def bytes_moved(shapes):
    rows, cols = shapes["logits"]
    return 4 * (rows * cols + 2 * rows)  # logits, labels, losses
