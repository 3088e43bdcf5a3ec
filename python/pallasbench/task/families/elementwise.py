"""The elementwise family: float maps over (rows, cols) matrices, one output element per element
of x (the activations; exp, log, rsqrt, clamp; add, multiply, maximum).

Kernel: pallasbench.kernels.elementwise. Memory-bound: every input is read once and the output
written once. map_blocks streams row-major blocks of 32 KB (8K float32 elements) whose column
extent covers whole rows (contiguous 16-byte loads); blocks divide the array (the block rule
refuses ragged ones: Pallas's Triton lowering does not mask edge blocks). A member's kernel is
one call: map_float32 (its formula on float32 values, so bfloat16/float16 inputs are upcast on
load and the result is rounded once on store) or map_exact (a selection, exact in the input's
dtype).

What members import from here by name: the flags (no dot, no order-dependent sum), STRESS (the
float-map cases: tiny and large scale every float input; nothing to offset, no discrete input),
the inputs of a one- or two-matrix member and how they are drawn (INPUTS and make_inputs: x ~
N(0, 1); BINARY_INPUTS and make_binary_inputs: x, y ~ N(0, 1); POSITIVE_INPUTS and
make_positive_inputs: x log-uniform in [1e-3, 1e3]), `elements` and the byte model (bytes_moved:
every input read, one x-sized output written, floats at `itemsize` bytes). fused_gelu_bias takes
the flags, stress cases and byte model with its bias; the rows family takes x's.
"""

import math

from pallasbench.task.domains import POSITIVE, REAL, Input, log_uniform, normal
from pallasbench.task.stress import NO_DISCRETE_INPUT, NO_ROW_STATISTIC, stress_cases

USES_TF32 = False
ORDER_DEPENDENT = False
STRESS = stress_cases("tiny", "large", offset=NO_ROW_STATISTIC, degenerate=NO_DISCRETE_INPUT,
                      distinct=NO_DISCRETE_INPUT)

INPUTS = (Input("x", REAL),)
BINARY_INPUTS = (Input("x", REAL), Input("y", REAL))
POSITIVE_INPUTS = (Input("x", POSITIVE),)


def make_inputs(rng, shapes):
    return (normal(rng, shapes["x"]),)


def make_binary_inputs(rng, shapes):
    return normal(rng, shapes["x"]), normal(rng, shapes["y"])


def make_positive_inputs(rng, shapes):
    return (log_uniform(rng, shapes["x"], 1e-3, 1e3),)


def elements(shapes) -> int:
    """Elements of the output: x's."""
    rows, cols = shapes["x"]
    return rows * cols


def bytes_moved(shapes, itemsize=4):
    """Every input read once and the x-sized output written once, at `itemsize` bytes a float
    (4 at float32, 2 at bfloat16/float16)."""
    return (sum(math.prod(shape) for shape in shapes.values()) + elements(shapes)) * itemsize
