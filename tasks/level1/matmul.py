"""matmul: a @ b, float (M, K) @ (K, N).

The suite's tiled matmul (pallasbench.kernels.tiled_matmul) with an identity epilogue: a
streaming pallas_call packs b K-major (TF32 wgmma reads a 32-bit operand from shared memory
K-major only; a row-major b tile is re-laid out every K step: this task's first kernel ran
1.78 ms at 4096^3 on the H200, bench/results/2026-11-30-h200/fidelity_clean_flush.txt, against
678 us for the packed design in matmul_relu, tune_matmul_run1.txt), then one pallas_call of (128, 128) output tiles walks K in
32-wide steps. Dots run at Triton's default f32 precision: TF32 tensor cores (USES_TF32).
At bfloat16/float16 the dots take the 16-bit operands as they are (tensor cores, float32
accumulator, 64-wide K steps); the epilogue is float32, the tile rounded once on store.
No packing pass at bfloat16/float16: 16-bit wgmma reads the (K, N) weights as they are (one
dot per weight and step; tiled_matmul.packs_weights).

Shipped configuration: the TUNED table (tiled_matmul.TUNED_SQUARE, chosen on the H200 by
bench/probe.py) sets these choices at the task's MEDIUM and LARGE shapes per dtype; any other
shape takes the defaults above. At float32, and at bfloat16 LARGE, it runs the Mosaic GPU kernel
instead (tuning backend "mosaic", kernels/mosaic_matmul.py): persistent and warp-specialised, TMA
loads into a ring of SMEM stages, wgmma on TF32 at float32 (the weights packed K-major and rounded
to nearest TF32 by the packing pass; wgmma truncates x to TF32). Each record's kernel_config says
which values and backend ran.
"""

import jax.numpy as jnp

from pallasbench import task as tl
from pallasbench.task import tuning
from pallasbench.kernels import tiled_matmul as mm

NAME = "matmul"
LEVEL = 1
CATEGORY = "matmul"
INPUTS = (tl.Input("a", tl.REAL), tl.Input("b", tl.REAL))
SHAPES = tl.sizes(medium={"a": (1024, 1024), "b": (1024, 1024)},
                  small={"a": (256, 256), "b": (256, 256)},
                  large={"a": (4096, 4096), "b": (4096, 4096)})
TOLERANCE = tl.MATMUL
USES_TF32 = True
ORDER_DEPENDENT = False
STRESS = tl.stress_cases("tiny", "large", large_factor=1e3, offset=tl.NO_ROW_STATISTIC,
                         degenerate=tl.NO_DISCRETE_INPUT, distinct=tl.NO_DISCRETE_INPUT)


def make_inputs(rng, shapes):
    return tl.normal(rng, shapes["a"]), tl.weight(rng, shapes["b"])


def reference(a, b):
    # No precision here: the harness runs the correctness reference at "highest" and the speed
    # baseline at XLA's default (TF32), through jax.default_matmul_precision.
    return jnp.matmul(a, b)


# Chosen on the H200 by bench/probe.py for this shape family (tiled_matmul.TUNED_SQUARE).
TUNED = mm.TUNED_SQUARE


@tuning.tuned_kernel(NAME, SHAPES, INPUTS, TUNED)
def kernel(a, b):
    return mm.fused_matmul(a, (b,), _identity, name=NAME)


def _identity(acc):
    return acc


def flops(shapes):
    (m, k), (_, n) = shapes["a"], shapes["b"]
    return 2 * m * n * k


def bytes_moved(shapes, itemsize=4):
    # a and b read once and the output written once, floats at `itemsize` bytes (4 at float32,
    # 2 at bfloat16/float16).
    (m, k), (_, n) = shapes["a"], shapes["b"]
    return itemsize * (m * k + k * n + m * n)
