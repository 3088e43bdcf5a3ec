"""The rows family: functions of whole rows of an (N, D) float matrix: the norms (layernorm,
rmsnorm, layernorm_residual, rmsnorm_residual, fused_layer_norm_relu), the softmax-class ops
(softmax, log_softmax), the reductions (reduce_sum, reduce_mean, reduce_max, col_sum) and the
losses (mse_loss, huber_loss, cosine_sim; over logits: sigmoid_bce, fused_softmax_cross_entropy).

Kernels: pallasbench.kernels.rowwise (map_rows: whole rows in registers, or two passes over
column tiles of wider rows; padded_rows for the level-2 norm fusions, normalized_rows with its
pivot-shifted sums) and kernels.reductions. Memory-bound; computed in float32 at every dtype,
rounded once on store.

What members import from here by name: the flags (no dot, no order-dependent sum), their inputs
and how they are drawn (INPUTS and make_inputs: x ~ N(0, 1); RESIDUAL_INPUTS and
make_residual_inputs: x, r ~ N(0, 1)), EPS (the norms' 1e-5), the stress cases (STRESS for the
row statistics, norms and softmax: tiny, large, and offset, a constant per row of x, which a
kernel that sums or exponentiates before subtracting the row's mean or max loses to; REDUCE_STRESS
for the reductions: the elementwise family's tiny and large; LOSS_STRESS for the per-row losses:
tiny and large, their inputs not logits; LOGITS_STRESS for the losses over logits: the offset
case on the logits' rows), the byte models (bytes_moved: every input read and an x-sized output
written; row_reduction_bytes: x read, one value a row written; row_loss_bytes: every input read,
one value a row written) and `elements`.
"""

from pallasbench.task.domains import REAL, Input, normal
# x alone is drawn, counted and moved as in the elementwise family; members import these from here.
from pallasbench.task.families.elementwise import (INPUTS, ORDER_DEPENDENT, USES_TF32, bytes_moved,  # noqa: F401
                                                   elements, make_inputs)
from pallasbench.task.families.elementwise import STRESS as REDUCE_STRESS  # noqa: F401
from pallasbench.task.stress import NO_DISCRETE_INPUT, stress_cases

STRESS = stress_cases("tiny", "large", "offset", offset_input="x", degenerate=NO_DISCRETE_INPUT,
                      distinct=NO_DISCRETE_INPUT)
# Of the losses only those over logits take the offset case (cross_entropy and the loss fusions).
LOSS_STRESS = stress_cases("tiny", "large", offset="not a loss over logits (the offset case is for those only)",
                           degenerate=NO_DISCRETE_INPUT, distinct=NO_DISCRETE_INPUT)
LOGITS_STRESS = stress_cases("tiny", "large", "offset", offset_input="logits", degenerate=NO_DISCRETE_INPUT,
                             distinct=NO_DISCRETE_INPUT)
EPS = 1e-5

RESIDUAL_INPUTS = (Input("x", REAL), Input("r", REAL))


def make_residual_inputs(rng, shapes):
    return normal(rng, shapes["x"]), normal(rng, shapes["r"])


def row_reduction_bytes(shapes, itemsize=4):
    """x read once and one value a row written, at `itemsize` bytes a float."""
    rows, cols = shapes["x"]
    return (rows * cols + rows) * itemsize


def row_loss_bytes(shapes, itemsize=4):
    """Every input, each (rows, cols), read once and one value a row written, at `itemsize` bytes
    a float."""
    rows = max(shape[0] for shape in shapes.values())
    return itemsize * (sum(r * c for r, c in shapes.values()) + rows)
