"""The task vocabulary: what a task file under tasks/levelN/ declares itself with.

Task files import it as `from pallasbench import task as tl`. Only what several tasks share
lives here, split by concern; a task's own semantics stay in its file. Code that runs inside
kernels is not here but in pallasbench.kernels, whose modules a record's source bundles.

  blocks     Triton's block rules and the block shapes that follow them
  domains    inputs, their domains and generators, perturbation within a domain
  tolerance  the tolerances of the checks
  shapes     the SMALL / MEDIUM / LARGE shapes
  gpu_only   the mark of an implementation that runs on a GPU only
  stress     the stress cases a task declares, and their inputs
  registry   discovery and validation of the task files (not re-exported)
"""

from pallasbench.task import stress
from pallasbench.task.blocks import (DEFAULT_BLOCK_BYTES, MAX_BLOCK_ELEMENTS, BlockLimitError, block_2d, cdiv,
                                     check_block, dividing_tile, next_pow2, prev_pow2, row_block, triton_params)
from pallasbench.task.domains import (DISCRETE, ONE_HOT_ROWS, PERTURB_FRACTION, PERTURB_NOISE, POSITIVE, REAL,
                                      SIMPLEX_ROWS, UNIT, Input, bernoulli, dna, ids, log_uniform, normal,
                                      one_hot_dna, perturb, softmax_rows, uniform, weight)
from pallasbench.task.gpu_only import gpu_only
from pallasbench.task.shapes import SIZE_NAMES, sizes
from pallasbench.task.stress import (NO_DISCRETE_INPUT, NO_DISTINCT, NO_FLOAT_INPUT, NO_ROW_STATISTIC,
                                     STRESS_CASES, Stress, stress_cases)
from pallasbench.task.tolerance import (ATOMIC_SUM, ELEMENTWISE, EXACT, MATMUL, TRANSCENDENTAL,
                                        Tolerance)

__all__ = [
    "stress",
    "DEFAULT_BLOCK_BYTES", "MAX_BLOCK_ELEMENTS", "BlockLimitError", "block_2d", "cdiv", "check_block",
    "dividing_tile", "next_pow2", "prev_pow2", "row_block", "triton_params",
    "DISCRETE", "ONE_HOT_ROWS", "PERTURB_FRACTION", "PERTURB_NOISE", "POSITIVE", "REAL", "SIMPLEX_ROWS",
    "UNIT", "Input", "bernoulli", "dna", "ids", "log_uniform", "normal", "one_hot_dna", "perturb",
    "softmax_rows", "uniform", "weight",
    "gpu_only",
    "SIZE_NAMES", "sizes",
    "NO_DISCRETE_INPUT", "NO_DISTINCT", "NO_FLOAT_INPUT", "NO_ROW_STATISTIC", "STRESS_CASES", "Stress",
    "stress_cases",
    "ATOMIC_SUM", "ELEMENTWISE", "EXACT", "MATMUL", "TRANSCENDENTAL", "Tolerance",
]
