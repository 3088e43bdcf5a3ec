"""The attention family: softmax(q @ k^T / sqrt(d)) @ v over (S, d) heads (flash_attention; one
head), (H, S, d) (multi_head_attention) and causal (B, H, S, D) (attention_forward).

Kernel: pallasbench.kernels.online_attention (FlashAttention-2's online softmax: `flash_loop`
folds (bk, d) key/value tiles into float32 running max, exp-sum and accumulator, so no (S, S)
score matrix exists; TF32 dots at float32 with q and p rounded to nearest TF32 first; 16-bit
q, k, v and p on the 16-bit tensor cores at bfloat16/float16, with float32 statistics). Each
member writes its own grid and loop bounds around it.

What members import from here by name: the flags (TF32 dots; no order-dependent sum), STRESS,
the inputs q, k, v ~ N(0, 1) (INPUTS, make_inputs), stress_inputs (the offset case shifts every
score of a query row by one constant: stress.score_offset), SOFTMAX_FLOPS and the byte model.
STRESS: tiny; large scales v only (keep q, k: x1e3 on both puts scores at 1e6, beyond what TF32,
or float32, resolves, so the softmax would be rounding noise); offset shifts each score row by up
to 1e3, which a kernel that skips the row max overflows on.
"""

import math

from pallasbench.task import stress
from pallasbench.task.domains import REAL, Input, normal
from pallasbench.task.stress import NO_DISCRETE_INPUT, stress_cases

USES_TF32 = True
ORDER_DEPENDENT = False
STRESS = stress_cases("tiny", "large", "offset", offset_input="q", keep=("q", "k"), large_factor=1e3,
                      degenerate=NO_DISCRETE_INPUT, distinct=NO_DISCRETE_INPUT)

INPUTS = (Input("q", REAL), Input("k", REAL), Input("v", REAL))
# Per visible score: scale, max, subtract, exp, sum.
SOFTMAX_FLOPS = 5


def make_inputs(rng, shapes):
    return tuple(normal(rng, shapes[name]) for name in ("q", "k", "v"))


def stress_inputs(case, rng, shapes, inputs):
    """The offset case's inputs (stress.score_offset); every other case the default's (None)."""
    if case == "offset":
        return stress.score_offset(rng, *inputs)
    return None


def bytes_moved(shapes, itemsize=4):
    """q, k and v read once and the output (q's shape) written once, floats at `itemsize` bytes
    (4 at float32, 2 at bfloat16/float16)."""
    return 4 * math.prod(shapes["q"]) * itemsize
