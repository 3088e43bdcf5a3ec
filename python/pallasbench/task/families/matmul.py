"""The matmul-epilogue family: x @ w with an epilogue (bias, activation) or prologue fused into
one tiled matmul (matmul, matmul_relu, matmul_gelu, matmul_silu, fused_matmul_bias,
linear_bias_relu, fused_relu_matmul), and its GLU members, two weights gated in the epilogue
(geglu, swiglu; gated_mlp adds a down projection).

Kernel: pallasbench.kernels.tiled_matmul.fused_matmul, one call a matmul, whose docstring says
how it runs (a K-major packing pass for float32 dots, (bm, bn) output tiles walking K into a
float32 accumulator, TF32 dots at float32, 16-bit operands as they are at bfloat16/float16, the
Mosaic GPU kernel where a shipped table chooses it). The shipped tables are tiled_matmul's, one
per shape family (TUNED_SQUARE, TUNED_WIDE, TUNED_GATED...): the epilogue does not change the
tiling, so the members of one shape share the table probed on one of them. A GLU member's two
weights are one call: at float32 the packing pass interleaves wg and wu per output column tile,
so each x tile meets the [wg | wu] tile in a single (bm, 2*bn) dot into one float32 accumulator,
which the epilogue (tiled_matmul.gated) splits into gate and up halves (two dots per step into
two accumulators ran at half the rate on the H200).

What members import from here by name: the flags (TF32 dots; no order-dependent sum), STRESS
(the matmul class: tiny, and large at x1e3, where the reference stays finite; no row statistic,
no discrete input), their inputs and how they are drawn (x ~ N(0, 1) activations, weights
N(0, 1/K) (domains.weight), biases N(0, 1): INPUTS and make_inputs for x @ w, LINEAR_INPUTS and
make_linear_inputs for x @ w + b, GATED_INPUTS and make_gated_inputs for x, wg, wu) and the byte
models (every input read once and the (M, N) output written once, floats at `itemsize` bytes).
The other matmul-class tasks (batched_matmul, outer_product, pairwise_distance, mlp_block,
transformer_block) import the STRESS and flags they share with it.
"""

import math

from pallasbench.task.domains import REAL, Input, normal, weight
from pallasbench.task.stress import NO_DISCRETE_INPUT, NO_ROW_STATISTIC, stress_cases

USES_TF32 = True
ORDER_DEPENDENT = False
STRESS = stress_cases("tiny", "large", large_factor=1e3, offset=NO_ROW_STATISTIC, degenerate=NO_DISCRETE_INPUT,
                      distinct=NO_DISCRETE_INPUT)

INPUTS = (Input("x", REAL), Input("w", REAL, weight=True))
LINEAR_INPUTS = (*INPUTS, Input("b", REAL, weight=True))
GATED_INPUTS = (Input("x", REAL), Input("wg", REAL, weight=True), Input("wu", REAL, weight=True))


def make_inputs(rng, shapes):
    return normal(rng, shapes["x"]), weight(rng, shapes["w"])


def make_linear_inputs(rng, shapes):
    return normal(rng, shapes["x"]), weight(rng, shapes["w"]), normal(rng, shapes["b"])


def make_gated_inputs(rng, shapes):
    return normal(rng, shapes["x"]), weight(rng, shapes["wg"]), weight(rng, shapes["wu"])


def _read_and_written(shapes, out_cols: int, itemsize: int) -> int:
    rows = shapes["x"][0]
    return itemsize * (sum(math.prod(shape) for shape in shapes.values()) + rows * out_cols)


def bytes_moved(shapes, itemsize=4):
    """x, w (and b) read once and the (M, N) output written once."""
    return _read_and_written(shapes, shapes["w"][1], itemsize)


def gated_bytes(shapes, itemsize=4):
    """x, wg and wu read once and the (M, N) output written once."""
    return _read_and_written(shapes, shapes["wg"][1], itemsize)
