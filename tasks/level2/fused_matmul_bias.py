"""fused_matmul_bias: x @ w + b.

A matmul-epilogue task (pallasbench/task/families/matmul.py): the epilogue of
tiled_matmul.fused_matmul adds the program's (1, bn) bias tile before the single store.
Relative error on TF32 tensor cores: 2.1e-4 on the H200 at LARGE, against 2e-3.
"""

from pallasbench import task as tl
from pallasbench.kernels import tiled_matmul as mm
from pallasbench.task.families.matmul import ORDER_DEPENDENT, STRESS, USES_TF32, bytes_moved
from pallasbench.task.families.matmul import LINEAR_INPUTS as INPUTS, make_linear_inputs as make_inputs

NAME = "fused_matmul_bias"
LEVEL = 2
CATEGORY = "matmul_activation"
SHAPES = tl.sizes(medium={"x": (1024, 1024), "w": (1024, 2048), "b": (2048,)})
TOLERANCE = tl.MATMUL


def reference(x, w, b):
    return x @ w + b


# Chosen on the H200 by bench/probe.py for this shape family, per backend (tiled_matmul.TUNED_WIDE).
TUNED = mm.TUNED_WIDE


def _fused_matmul(x, w, b):
    return mm.fused_matmul(x, (w,), mm.bias_add, bias=b, name=NAME)


# One fused matmul, two implementations, each traced with its own shipped table: the Triton
# kernel (`kernel`) and the Mosaic GPU kernel (GPU only; the preferred backend on the GPU).
kernel, mosaic_kernel = mm.backend_kernels(NAME, SHAPES, INPUTS, TUNED, _fused_matmul)
BACKENDS = {"mosaic_gpu": mosaic_kernel, "triton": kernel}


def flops(shapes):
    (m, k), (_, n) = shapes["x"], shapes["w"]
    return 2 * m * n * k + m * n
