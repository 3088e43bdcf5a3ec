"""mlp_block: gelu(x @ w1 + b1) @ w2 + b2.

Two matmul pallas_calls in sequence, nothing in between but their weight-packing passes
(tiled_matmul.pack_weights: weights transposed, K-major), each a tiled matmul (128x128 tiles,
halved while the grid would leave SMs idle) with its K loop inside the kernel: the first adds b1
and applies gelu (tanh form) in its epilogue, so only the activated hidden layer goes to memory;
the second adds b2 in its epilogue.
At bfloat16 the dots take bf16 operands (float32 accumulators) and the hidden layer is stored in
bf16; at float16 it is stored in float32 (tiled_matmul.hidden_dtype: float16 overflows where the
reference's does not) and the second dot runs at float32 (TF32).
Dots run on TF32 tensor cores (precision DEFAULT; Triton rounds the operands to nearest TF32
itself, cvt.rna): relative error 2.6e-4 on the H200 at LARGE, against 2e-3.
No packing pass at bfloat16/float16: 16-bit wgmma reads the (K, N) weights as they are (one
dot per weight and step; tiled_matmul.packs_weights).

Two implementations (BACKENDS), each with its own TUNED table (chosen on the H200 by
bench/probe.py) at the task's MEDIUM and LARGE shapes per dtype; any other shape takes the
defaults. The Mosaic GPU one (GPU only, preferred there; kernels/mosaic_matmul.py) runs both
matmuls persistent and warp-specialised, TMA loads into a ring of SMEM stages, wgmma on TF32 at
float32 (the weights packed K-major and rounded to nearest TF32 by the packing pass; wgmma
truncates x to TF32). The Triton one (`kernel`) is the tiled kernel above. Each record's backend
and kernel_config say which kernel and values ran.
"""

import jax

from pallasbench import task as tl
from pallasbench.task import tuning
from pallasbench.kernels import tiled_matmul as mm
from pallasbench.task.families.matmul import ORDER_DEPENDENT, STRESS, USES_TF32

NAME = "mlp_block"
LEVEL = 3
CATEGORY = "mlp"
INPUTS = (tl.Input("x", tl.REAL), tl.Input("w1", tl.REAL, weight=True), tl.Input("b1", tl.REAL, weight=True),
          tl.Input("w2", tl.REAL, weight=True), tl.Input("b2", tl.REAL, weight=True))
SHAPES = tl.sizes(medium={"x": (1024, 768), "w1": (768, 3072), "b1": (3072,),
                          "w2": (3072, 768), "b2": (768,)})
TOLERANCE = tl.MATMUL


def make_inputs(rng, shapes):
    return (tl.normal(rng, shapes["x"]), tl.weight(rng, shapes["w1"]), tl.normal(rng, shapes["b1"]),
            tl.weight(rng, shapes["w2"]), tl.normal(rng, shapes["b2"]))


def reference(x, w1, b1, w2, b2):
    return jax.nn.gelu(x @ w1 + b1, approximate=True) @ w2 + b2


# Chosen on the H200 by bench/probe.py, per backend: the Triton tiles (float16) in
# bench/results/2026-12-03-h200-kernels/, the Mosaic GPU entries in
# bench/results/2026-12-03-h200-tuning2/ (MEDIUM: mosaic_matmul.plan picks each of the two
# matmuls' tiles, chosen over the Triton kernel there at float32 and bfloat16). LARGE: the tile
# that won on the three other matmul-class probes (this task's ran out of time).
_PROBED = dict(gpu="NVIDIA H200", source="bench/results/2026-12-03-h200-tuning2")
TUNED = {
    "triton": tuning.Tuned(**_PROBED, configs={
        "medium": {"float16": {"bm": 128, "width": 64, "bk": 64, "num_warps": 4, "num_stages": 4}},
        "large": {"float16": {"bm": 128, "width": 256, "bk": 64, "num_warps": 8, "num_stages": 3}}}),
    "mosaic": tuning.Tuned(**_PROBED, configs={
        "large": {"float32": mm.mosaic(128, 256, 3), "bfloat16": mm.mosaic(128, 256, 3)}}),
}


def _mlp_block(x, w1, b1, w2, b2):
    h = mm.fused_matmul(x, (w1,), lambda acc, b: mm.gelu(acc + b), bias=b1,
                        out_dtype=mm.hidden_dtype(x.dtype), name=NAME + "_up", task=NAME)
    return mm.fused_matmul(h, (w2,), lambda acc, b: acc + b, bias=b2, out_dtype=x.dtype,
                           name=NAME + "_down", task=NAME)


# Both matmuls on one backend: Triton (`kernel`) or the Mosaic GPU kernel (GPU only).
kernel, mosaic_kernel = mm.backend_kernels(NAME, SHAPES, INPUTS, TUNED, _mlp_block)
BACKENDS = {"mosaic_gpu": mosaic_kernel, "triton": kernel}


def flops(shapes):
    (m, d), (_, hidden), (_, n) = shapes["x"], shapes["w1"], shapes["w2"]
    return (2 * m * hidden * d + (1 + mm.GELU_FLOPS) * m * hidden
            + 2 * m * n * hidden + m * n)


def bytes_moved(shapes, itemsize=4):
    # x, w1, b1, w2 and b2 read once and the output written once (the hidden layer not counted),
    # floats at `itemsize` bytes (4 at float32, 2 at bfloat16/float16).
    (m, d), (_, hidden), (_, n) = shapes["x"], shapes["w1"], shapes["w2"]
    return itemsize * (m * d + d * hidden + hidden + hidden * n + n + m * n)
