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
STRESS = tl.stress("tiny", "large", "offset", "degenerate", offset_input="logits",
                   distinct=tl.NO_DISTINCT)

BLOCK_BYTES = 16 * 1024  # 4K f32 a block: 32 a thread at 4 warps, 128+ programs at MEDIUM


def make_inputs(rng, shapes):
    logits = tl.normal(rng, shapes["logits"])
    return logits, tl.ids(rng, shapes["labels"], shapes["logits"][1])


def reference(logits, labels):
    logp = jax.nn.log_softmax(logits, axis=-1)
    return -jnp.take_along_axis(logp, labels[:, None], axis=-1)[:, 0]


def _body(x_ref, label_ref, o_ref, *, rows, cols):
    row0 = pl.program_id(0) * x_ref.shape[0]
    # Masked columns read -inf: exp(-inf) = 0 adds nothing to the sum.
    x = tl.load_tile(x_ref, row0, rows, 0, cols, x_ref.shape[1], other=-jnp.inf)
    labels = tl.load_rows(label_ref, row0, rows, other=0)
    z = x - jnp.max(x, axis=1, keepdims=True)
    lse = jnp.log(jnp.sum(jnp.exp(z), axis=1))
    # The label's logit: exactly one column matches, so the masked sum is exact.
    col = lax.broadcasted_iota(jnp.int32, x.shape, 1)
    z_label = jnp.sum(jnp.where(col == labels[:, None], z, 0.0), axis=1)
    tl.store_rows(o_ref, lse - z_label, row0, rows)


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
