"""matmul_silu: silu(x @ w) = (x @ w) * sigmoid(x @ w).

A matmul-epilogue task (pallasbench/task/families/matmul.py): silu, as y * logistic(y), in the
epilogue of tiled_matmul.fused_matmul, before the single store. Relative error on TF32 tensor
cores: 3.0e-4 on the H200 at LARGE, against 2e-3.
"""

import jax

from pallasbench import task as tl
from pallasbench.kernels import tiled_matmul as mm
from pallasbench.task.families.matmul import INPUTS, ORDER_DEPENDENT, STRESS, USES_TF32, bytes_moved, make_inputs

NAME = "matmul_silu"
LEVEL = 2
CATEGORY = "matmul_activation"
SHAPES = tl.sizes(medium={"x": (1024, 1024), "w": (1024, 1024)})
TOLERANCE = tl.MATMUL


def reference(x, w):
    return jax.nn.silu(x @ w)


# Chosen on the H200 by bench/probe.py for this shape family, per backend (tiled_matmul.TUNED_SQUARE).
TUNED = mm.TUNED_SQUARE


def _fused_matmul(x, w):
    return mm.fused_matmul(x, (w,), mm.silu, name=NAME)


# One fused matmul, two implementations, each traced with its own shipped table: the Triton
# kernel (`kernel`) and the Mosaic GPU kernel (GPU only; the preferred backend on the GPU).
kernel, mosaic_kernel = mm.backend_kernels(NAME, SHAPES, INPUTS, TUNED, _fused_matmul)
BACKENDS = {"mosaic_gpu": mosaic_kernel, "triton": kernel}


def flops(shapes):
    (m, k), (_, n) = shapes["x"], shapes["w"]
    return 2 * m * n * k + mm.SILU_FLOPS * m * n
