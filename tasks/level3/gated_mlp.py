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
"""

import jax

from pallasbench import task as tl
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
