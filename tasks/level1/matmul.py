"""matmul: a @ b, float (M, K) @ (K, N).

A matmul-epilogue task (pallasbench/task/families/matmul.py): the suite's tiled matmul
(kernels/tiled_matmul.py) with an identity epilogue. At float32 a streaming pass first packs b
K-major (TF32 wgmma reads a 32-bit operand from shared memory K-major only; a row-major b tile is
re-laid out every K step: this task's first kernel ran 1.78 ms at 4096^3 on the H200,
bench/results/2026-11-30-h200/fidelity_clean_flush.txt, against 678 us for the packed design in
matmul_relu, tune_matmul_run1.txt), then one pallas_call of (128, 128) output tiles walks K in
32-wide steps. Dots run at Triton's default f32 precision: TF32 tensor cores (USES_TF32). At
bfloat16/float16 the dots take the 16-bit operands as they are, with no packing pass.

Two implementations (BACKENDS): the Mosaic GPU kernel (kernels/mosaic_matmul.py: persistent, TMA
and wgmma, warp-specialised; GPU only, preferred there; its float32 weights go through the same
packing pass, a Triton pallas_call) and the Triton kernel (`kernel`, also the CPU's). Shipped
configuration: tiled_matmul.TUNED_SQUARE, one table per backend (chosen on the H200 by
bench/probe.py) at the MEDIUM and LARGE shapes per dtype; any other shape takes the defaults.
Each record's backend and kernel_config say which kernel and values ran.
"""

import jax.numpy as jnp

from pallasbench import task as tl
from pallasbench.kernels import tiled_matmul as mm
from pallasbench.task.families.matmul import ORDER_DEPENDENT, STRESS, USES_TF32

NAME = "matmul"
LEVEL = 1
CATEGORY = "matmul"
INPUTS = (tl.Input("a", tl.REAL), tl.Input("b", tl.REAL, weight=True))
SHAPES = tl.sizes(medium={"a": (1024, 1024), "b": (1024, 1024)},
                  small={"a": (256, 256), "b": (256, 256)},
                  large={"a": (4096, 4096), "b": (4096, 4096)})
TOLERANCE = tl.MATMUL


def make_inputs(rng, shapes):
    return tl.normal(rng, shapes["a"]), tl.weight(rng, shapes["b"])


def reference(a, b):
    # No precision here: the harness runs the correctness reference at "highest" and the speed
    # baseline at XLA's default (TF32), through jax.default_matmul_precision.
    return jnp.matmul(a, b)


# Chosen on the H200 by bench/probe.py for this shape family, per backend (tiled_matmul.TUNED_SQUARE).
TUNED = mm.TUNED_SQUARE


def _fused_matmul(a, b):
    return mm.fused_matmul(a, (b,), mm.identity, name=NAME)


# One fused matmul, two implementations, each traced with its own shipped table: the Triton
# kernel (`kernel`) and the Mosaic GPU kernel (GPU only; the preferred backend on the GPU).
kernel, mosaic_kernel = mm.backend_kernels(NAME, SHAPES, INPUTS, TUNED, _fused_matmul)
BACKENDS = {"mosaic_gpu": mosaic_kernel, "triton": kernel}


def flops(shapes):
    (m, k), (_, n) = shapes["a"], shapes["b"]
    return 2 * m * n * k


def bytes_moved(shapes, itemsize=4):
    # a and b read once and the output written once, floats at `itemsize` bytes (4 at float32,
    # 2 at bfloat16/float16).
    (m, k), (_, n) = shapes["a"], shapes["b"]
    return itemsize * (m * k + k * n + m * n)
