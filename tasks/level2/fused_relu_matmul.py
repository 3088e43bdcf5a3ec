"""fused_relu_matmul: relu(x) @ w.

A matmul-epilogue task (pallasbench/task/families/matmul.py) with a prologue: in
tiled_matmul.fused_matmul's Triton kernel relu is applied to each x tile as it is loaded, before
its dot, so relu(x) never goes to memory. Relative error on TF32 tensor cores: 2.9e-4 on the
H200 at LARGE, against 2e-3.

Shipped configuration: tiled_matmul.TUNED_SQUARE_PROLOGUE, one table per backend, at the task's
MEDIUM and LARGE shapes per dtype (float16 takes bfloat16's). The Mosaic GPU implementation (TMA,
wgmma, warp specialised; kernels/mosaic_matmul.py; GPU only) runs matmul's probed tiles: the
operands reach shared memory by TMA with no step in between, so relu(x) is one Pallas pass of its
own (rounded to nearest TF32 on the way, where wgmma would truncate) and goes to memory once. The
Triton kernel (`kernel`) applies relu to each x tile in its K loop. Each record's kernel_config says which
values ran.
"""

import jax.numpy as jnp

from pallasbench import task as tl
from pallasbench.kernels import tiled_matmul as mm
from pallasbench.task.families.matmul import INPUTS, ORDER_DEPENDENT, STRESS, USES_TF32, bytes_moved, make_inputs

NAME = "fused_relu_matmul"
LEVEL = 2
CATEGORY = "matmul_activation"
SHAPES = tl.sizes(medium={"x": (1024, 1024), "w": (1024, 1024)})
TOLERANCE = tl.MATMUL


def reference(x, w):
    return jnp.maximum(x, 0.0) @ w


# Chosen on the H200 by bench/probe.py for this shape family, per backend (tiled_matmul.TUNED_SQUARE_PROLOGUE).
TUNED = mm.TUNED_SQUARE_PROLOGUE


def _fused_matmul(x, w):
    return mm.fused_matmul(x, (w,), mm.identity, prologue=mm.relu, name=NAME)


# One fused matmul, two implementations, each traced with its own shipped table: the Triton
# kernel (`kernel`) and the Mosaic GPU kernel (GPU only; the preferred backend on the GPU).
kernel, mosaic_kernel = mm.backend_kernels(NAME, SHAPES, INPUTS, TUNED, _fused_matmul)
BACKENDS = {"mosaic_gpu": mosaic_kernel, "triton": kernel}


def flops(shapes):
    (m, k), (_, n) = shapes["x"], shapes["w"]
    return 2 * m * n * k + mm.RELU_FLOPS * m * k
