"""cross_entropy: -log_softmax(logits)[i, label_i], one loss per row.

Memory-bound row reduction (reductions.row_values: whole rows a program, ragged edge blocks through
masks, float32 sums at every dtype): each program loads 16 KB of logits a block (4K float32
elements, 4 warps) with their labels, forms max, sum(exp(x - max)) and the label's shifted logit (a
compare-and-select against a column iota: no gather) in registers, and writes one value per row.
"""

import jax
import jax.numpy as jnp
from jax import lax

from pallasbench import task as tl
from pallasbench.kernels import reductions
from pallasbench.kernels import mosaic_reductions

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
STRESS = tl.stress_cases("tiny", "large", "offset", "degenerate", offset_input="logits",
                         distinct=tl.NO_DISTINCT)

BLOCK_BYTES = 16 * 1024  # 4K f32 a block: 32 a thread at 4 warps, 128+ programs at MEDIUM


def make_inputs(rng, shapes):
    logits = tl.normal(rng, shapes["logits"])
    return logits, tl.ids(rng, shapes["labels"], shapes["logits"][1])


def reference(logits, labels):
    logp = jax.nn.log_softmax(logits, axis=-1)
    return -jnp.take_along_axis(logp, labels[:, None], axis=-1)[:, 0]


def _cross_entropy_rows(x, labels):
    z = x - jnp.max(x, axis=1, keepdims=True)
    lse = jnp.log(jnp.sum(jnp.exp(z), axis=1))
    # The label's logit: exactly one column matches, so the masked sum is exact.
    col = lax.broadcasted_iota(jnp.int32, x.shape, 1)
    z_label = jnp.sum(jnp.where(col == labels[:, None], z, 0.0), axis=1)
    return lse - z_label


def kernel(logits, labels):
    # Masked columns read -inf: exp(-inf) = 0 adds nothing to the sum.
    return reductions.row_values(_cross_entropy_rows, logits, labels, others=(-jnp.inf, 0),
                                 block_bytes=BLOCK_BYTES, num_warps=4, name=NAME)


# The Mosaic GPU implementation (plgpu.kernel, kernels/mosaic_reductions.py): the preferred backend.
BACKENDS = {"mosaic_gpu": mosaic_reductions.KERNELS[NAME], "triton": kernel}


def flops(shapes):
    rows, cols = shapes["logits"]
    # max, subtract, exp, add per element (the label select is bookkeeping); log, sub per row
    return 4 * rows * cols + 2 * rows


def bytes_moved(shapes, itemsize=4):
    # logits read and one loss a row written, floats at `itemsize` bytes (4 at float32, 2 at
    # bfloat16/float16); the int32 labels read at 4 bytes whatever the float size.
    rows, cols = shapes["logits"]
    label_bytes = 4  # int32
    return itemsize * (rows * cols + rows) + label_bytes * rows
