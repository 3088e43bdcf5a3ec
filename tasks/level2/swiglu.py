"""swiglu: silu(x @ wg) * (x @ wu).

A GLU task (pallasbench/task/families/matmul.py): the gate and up projections in one
tiled_matmul.fused_matmul, whose epilogue takes silu of the gate half, as g * logistic(g), times
the up half before the single store. Relative error on TF32 tensor cores: 4.2e-4 on the H200 at
LARGE, against 2e-3.
"""

import jax

from pallasbench import task as tl
from pallasbench.kernels import tiled_matmul as mm
from pallasbench.task.families.matmul import ORDER_DEPENDENT, STRESS, USES_TF32
from pallasbench.task.families.matmul import GATED_INPUTS as INPUTS, gated_bytes as bytes_moved
from pallasbench.task.families.matmul import make_gated_inputs as make_inputs

NAME = "swiglu"
LEVEL = 2
CATEGORY = "mlp_fusion"
SHAPES = tl.sizes(medium={"x": (512, 1024), "wg": (1024, 2048), "wu": (1024, 2048)})
TOLERANCE = tl.MATMUL


def reference(x, wg, wu):
    return jax.nn.silu(x @ wg) * (x @ wu)


# Chosen on the H200 by bench/probe.py for this shape family, per backend (tiled_matmul.TUNED_GATED).
TUNED = mm.TUNED_GATED


def _fused_matmul(x, wg, wu):
    return mm.fused_matmul(x, (wg, wu), mm.gated(mm.silu), name=NAME)


# One fused matmul, two implementations, each traced with its own shipped table: the Triton
# kernel (`kernel`) and the Mosaic GPU kernel (GPU only; the preferred backend on the GPU).
kernel, mosaic_kernel = mm.backend_kernels(NAME, SHAPES, INPUTS, TUNED, _fused_matmul)
BACKENDS = {"mosaic_gpu": mosaic_kernel, "triton": kernel}


def flops(shapes):
    (m, k), (_, n) = shapes["x"], shapes["wg"]
    return 2 * (2 * m * n * k) + (mm.SILU_FLOPS + 1) * m * n
