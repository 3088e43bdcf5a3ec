"""gated_mlp: (silu(x @ wg) * (x @ wu)) @ wd.

Two matmul pallas_calls in sequence, nothing in between but their weight-packing passes
(tiled_matmul.pack_weights: weights transposed, K-major). The first is the SwiGLU kernel: per (bm,
bn) tile of h one K loop feeds one dot against the interleaved [wg | wu] tile and the epilogue
gates, so only h goes to memory. The second is the tiled down-projection h @ wd.
At bfloat16 the dots take bf16 operands (float32 accumulators) and h is stored in bf16; at float16
h is stored in float32 (tiled_matmul.hidden_dtype: float16 overflows where the reference's h does
not) and the down-projection's dot runs at float32 (TF32).
Dots run on TF32 tensor cores (precision DEFAULT; Triton rounds the operands to nearest TF32
itself, cvt.rna): relative error 5.2e-4 on the H200 at LARGE, against 2e-3.

No packing pass at bfloat16/float16: 16-bit wgmma reads the (K, N) weights as they are (one
dot per weight and step; tiled_matmul.packs_weights).

Shipped configuration: the TUNED table sets the choices at the task's LARGE shape at float32:
both matmuls on the Mosaic GPU kernel (kernels/mosaic_matmul.py) with its planned tiles (128
rows, the width halved while fewer tiles than SMs: 128 for the gate, 64 for the down
projection), as mlp_block ships at MEDIUM; the Triton defaults above ran at 0.60x of XLA there
(2026-12-04). Each record's kernel_config says which values ran.
"""

import jax

from pallasbench import task as tl
from pallasbench.task import tuning
from pallasbench.kernels import tiled_matmul as mm

NAME = "gated_mlp"
LEVEL = 3
CATEGORY = "mlp"
INPUTS = (tl.Input("x", tl.REAL), tl.Input("wg", tl.REAL), tl.Input("wu", tl.REAL),
          tl.Input("wd", tl.REAL))
SHAPES = tl.sizes(medium={"x": (256, 512), "wg": (512, 1024), "wu": (512, 1024),
                          "wd": (1024, 512)})
TOLERANCE = tl.MATMUL
USES_TF32 = True
ORDER_DEPENDENT = False
STRESS = tl.stress_cases("tiny", "large", large_factor=1e3, offset=tl.NO_ROW_STATISTIC,
                         degenerate=tl.NO_DISCRETE_INPUT, distinct=tl.NO_DISCRETE_INPUT)


def make_inputs(rng, shapes):
    return (tl.normal(rng, shapes["x"]), tl.weight(rng, shapes["wg"]),
            tl.weight(rng, shapes["wu"]), tl.weight(rng, shapes["wd"]))


def reference(x, wg, wu, wd):
    return (jax.nn.silu(x @ wg) * (x @ wu)) @ wd


# Not probed: the Mosaic GPU kernel's own plan (swiglu's and mlp_block's probes chose it there).
TUNED = tuning.Tuned(gpu="NVIDIA H200", source="bench/results/2026-12-04-h200", configs={
    "large": {"float32": {"backend": "mosaic"}},
})


@tuning.tuned_kernel(NAME, SHAPES, INPUTS, TUNED)
def kernel(x, wg, wu, wd):
    h = mm.fused_matmul(x, (wg, wu), lambda g, u: mm.silu(g) * u, out_dtype=mm.hidden_dtype(x.dtype),
                        name=NAME + "_gate_up", task=NAME)
    return mm.fused_matmul(h, (wd,), lambda acc: acc, out_dtype=x.dtype, name=NAME + "_down", task=NAME)


def flops(shapes):
    (m, d), (_, hidden), (_, n) = shapes["x"], shapes["wg"], shapes["wd"]
    return 2 * (2 * m * hidden * d) + (mm.SILU_FLOPS + 1) * m * hidden + 2 * m * n * hidden


def bytes_moved(shapes, itemsize=4):
    # x, wg, wu and wd read once and the output written once (h not counted), floats at
    # `itemsize` bytes (4 at float32, 2 at bfloat16/float16).
    (m, d), (_, hidden), (_, n) = shapes["x"], shapes["wg"], shapes["wd"]
    return itemsize * (m * d + 2 * d * hidden + hidden * n + m * n)
