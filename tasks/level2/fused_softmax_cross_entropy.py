"""fused_softmax_cross_entropy: -sum(labels * log_softmax(logits)) per row (soft labels).

Memory-bound: logits and labels are each read once, one float per row written. One program owns
whole rows (a power-of-two block; padded columns are masked out of the max, the exp-sum and the
label product), so log_softmax is never materialised. Rows per program are capped to keep
>= 256 programs. Computed in float32 at every dtype, rounded once on store. Tunable launch
shape: padded_rows' keys (kernels.rowwise, pallasbench.task.tuning).
"""

import jax
import jax.numpy as jnp
from jax import lax

from pallasbench import task as tl
from pallasbench.task import tuning
from pallasbench.kernels import rowwise
from pallasbench.kernels import mosaic_reductions
from pallasbench.task.families.rows import ORDER_DEPENDENT, USES_TF32
from pallasbench.task.families.rows import LOGITS_STRESS as STRESS, row_loss_bytes as bytes_moved

NAME = "fused_softmax_cross_entropy"
LEVEL = 2
CATEGORY = "loss_fusion"
INPUTS = (tl.Input("logits", tl.REAL), tl.Input("labels", tl.SIMPLEX_ROWS))
SHAPES = tl.sizes(medium={"logits": (1024, 512), "labels": (1024, 512)})
TOLERANCE = tl.ELEMENTWISE

# max, z-m, exp, sum, -lse, *label, sum
FLOPS_PER_ELEMENT = 7


def make_inputs(rng, shapes):
    return tl.normal(rng, shapes["logits"]), tl.softmax_rows(rng, shapes["labels"])


def reference(logits, labels):
    return -jnp.sum(labels * jax.nn.log_softmax(logits, axis=-1), axis=-1)


def _body(z_ref, y_ref, o_ref, *, cols):
    z = z_ref[...].astype(jnp.float32)
    valid = None
    if z.shape[1] != cols:  # padded columns must not win the max nor add to the exp-sum
        valid = lax.broadcasted_iota(jnp.int32, z.shape, 1) < cols
        z = jnp.where(valid, z, -jnp.inf)
    shifted = z - jnp.max(z, axis=1)[:, None]
    logp = shifted - jnp.log(jnp.sum(jnp.exp(shifted), axis=1))[:, None]
    terms = y_ref[...].astype(jnp.float32) * logp
    if valid is not None:  # 0 * -inf in padded columns would be NaN
        terms = jnp.where(valid, terms, 0.0)
    o_ref[...] = (-jnp.sum(terms, axis=1)).astype(o_ref.dtype)


# Chosen on the H200 by bench/probe.py over bench/variants/rows.py
# (bench/results/2026-12-03-h200-tuning2/).
TUNED = tuning.Tuned(gpu="NVIDIA H200", source="bench/results/2026-12-03-h200-tuning2", configs={
    "medium": {"float32": {"min_programs": 1024, "num_warps": 2}},
})


@tuning.tuned_kernel(NAME, SHAPES, INPUTS, TUNED)
def kernel(logits, labels):
    return rowwise.padded_rows(_body, logits, labels, per_row=True, name=NAME)


# The Mosaic GPU implementation (plgpu.kernel, kernels/mosaic_reductions.py): the preferred backend.
BACKENDS = {"mosaic_gpu": mosaic_reductions.KERNELS[NAME], "triton": kernel}


def flops(shapes):
    rows, cols = shapes["logits"]
    return FLOPS_PER_ELEMENT * rows * cols
