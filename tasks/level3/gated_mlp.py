"""gated_mlp: (silu(x @ wg) * (x @ wu)) @ wd.

A GLU task (pallasbench/task/families/matmul.py) with a down projection: two
tiled_matmul.fused_matmul calls in sequence, nothing in between but their weight-packing passes.
The first is swiglu's kernel (the gate and up projections in one dot a K step, gated in the
epilogue), so only h goes to memory; the second is the tiled down-projection h @ wd.
At bfloat16 h is stored in bf16; at float16 h is stored in float32 (tiled_matmul.hidden_dtype:
float16 overflows where the reference's h does not) and the down-projection's dot runs at
float32 (TF32). Relative error on TF32 tensor cores: 5.2e-4 on the H200 at LARGE, against 2e-3.

Two implementations (BACKENDS): both matmuls on the Mosaic GPU kernel (kernels/mosaic_matmul.py;
GPU only, preferred there) with its planned tiles (128 rows, the width halved while fewer tiles
than SMs: 128 for the gate, 64 for the down projection), or both on the Triton kernel (`kernel`)
with its defaults, which ran at 0.60x of XLA at LARGE float32 (2026-12-04). Each record's
kernel_config says which values ran.
"""

import jax

from pallasbench import task as tl
from pallasbench.kernels import tiled_matmul as mm
from pallasbench.task import tuning
from pallasbench.task.families.matmul import ORDER_DEPENDENT, STRESS, USES_TF32, make_gated_inputs

NAME = "gated_mlp"
LEVEL = 3
CATEGORY = "mlp"
INPUTS = (tl.Input("x", tl.REAL), tl.Input("wg", tl.REAL, weight=True), tl.Input("wu", tl.REAL, weight=True),
          tl.Input("wd", tl.REAL, weight=True))
SHAPES = tl.sizes(medium={"x": (256, 512), "wg": (512, 1024), "wu": (512, 1024),
                          "wd": (1024, 512)})
TOLERANCE = tl.MATMUL


def make_inputs(rng, shapes):
    return (*make_gated_inputs(rng, shapes), tl.weight(rng, shapes["wd"]))


def reference(x, wg, wu, wd):
    return (jax.nn.silu(x @ wg) * (x @ wu)) @ wd


# Not probed: each backend's own plan (measured on the H200 on 2026-12-04 at LARGE float32: the
# Mosaic GPU kernel's against the Triton defaults' 0.60x of XLA).
_MEASURED = dict(gpu="NVIDIA H200", source="bench/results/2026-12-04-h200", configs={})
TUNED = {"triton": tuning.Tuned(**_MEASURED), "mosaic": tuning.Tuned(**_MEASURED)}


def _gated_mlp(x, wg, wu, wd):
    h = mm.fused_matmul(x, (wg, wu), mm.gated(mm.silu), out_dtype=mm.hidden_dtype(x.dtype),
                        name=NAME + "_gate_up", task=NAME)
    return mm.fused_matmul(h, (wd,), mm.identity, out_dtype=x.dtype, name=NAME + "_down", task=NAME)


# Both matmuls on one backend: Triton (`kernel`) or the Mosaic GPU kernel (GPU only).
kernel, mosaic_kernel = mm.backend_kernels(NAME, SHAPES, INPUTS, TUNED, _gated_mlp)
BACKENDS = {"mosaic_gpu": mosaic_kernel, "triton": kernel}


def flops(shapes):
    (m, d), (_, hidden), (_, n) = shapes["x"], shapes["wg"], shapes["wd"]
    return 2 * (2 * m * hidden * d) + (mm.SILU_FLOPS + 1) * m * hidden + 2 * m * n * hidden


def bytes_moved(shapes, itemsize=4):
    # x, wg, wu and wd read once and the output written once (h not counted), floats at
    # `itemsize` bytes (4 at float32, 2 at bfloat16/float16).
    (m, d), (_, hidden), (_, n) = shapes["x"], shapes["wg"], shapes["wd"]
    return itemsize * (m * d + 2 * d * hidden + hidden * n + m * n)
