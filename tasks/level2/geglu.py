"""geglu: gelu(x @ wg) * (x @ wu).

At float32 a packing pass first writes wg and wu transposed (K-major) and interleaved per output column tile
(tiled_matmul.pack_weights). Then one pallas_call computes both projections and the gate: each
program owns one (bm, bn) output tile (128x64, halved while the grid would leave SMs idle), walks
K in 32-wide steps with an in-kernel fori_loop and feeds each x tile to a single (bm, 2*bn) dot
against the interleaved [wg | wu] tile, one float32 accumulator; the epilogue splits it, applies
gelu to the gate half and multiplies by the up half before the single store. (At float32, two dots per step
into two accumulators ran at half the rate on the H200.)
Dots run on TF32 tensor cores (precision DEFAULT; Triton rounds the operands to nearest TF32
itself, cvt.rna): relative error 4.2e-4 on the H200 at LARGE, against 2e-3.
At bfloat16/float16 the dots take the 16-bit operands as they are (tensor cores, float32
accumulator, 64-wide K steps); the epilogue is float32, the tile rounded once on store.
No packing pass at bfloat16/float16: 16-bit wgmma reads the (K, N) weights as they are (one
dot per weight and step; tiled_matmul.packs_weights).

Shipped configuration: the TUNED table (tiled_matmul.TUNED_GATED, chosen on the H200 by
bench/probe.py) sets these choices at the task's MEDIUM and LARGE shapes per dtype; any other
shape takes the defaults above. At float32 it runs the Mosaic GPU kernel instead (tuning backend
"mosaic", kernels/mosaic_matmul.py): persistent and warp-specialised, TMA loads into a ring of
SMEM stages, wgmma on TF32 at float32 (the weights packed K-major and rounded to nearest TF32 by
the packing pass; wgmma truncates x to TF32). Each record's kernel_config says which values and
backend ran.
"""

import jax

from pallasbench import task as tl
from pallasbench.task import tuning
from pallasbench.kernels import tiled_matmul as mm

NAME = "geglu"
LEVEL = 2
CATEGORY = "mlp_fusion"
INPUTS = (tl.Input("x", tl.REAL), tl.Input("wg", tl.REAL), tl.Input("wu", tl.REAL))
SHAPES = tl.sizes(medium={"x": (512, 1024), "wg": (1024, 2048), "wu": (1024, 2048)})
TOLERANCE = tl.MATMUL
USES_TF32 = True
ORDER_DEPENDENT = False
STRESS = tl.stress_cases("tiny", "large", large_factor=1e3, offset=tl.NO_ROW_STATISTIC,
                         degenerate=tl.NO_DISCRETE_INPUT, distinct=tl.NO_DISCRETE_INPUT)


def make_inputs(rng, shapes):
    return (tl.normal(rng, shapes["x"]), tl.weight(rng, shapes["wg"]),
            tl.weight(rng, shapes["wu"]))


def reference(x, wg, wu):
    return jax.nn.gelu(x @ wg, approximate=True) * (x @ wu)


# Chosen on the H200 by bench/probe.py for this shape family (tiled_matmul.TUNED_GATED).
TUNED = mm.TUNED_GATED


@tuning.tuned_kernel(NAME, SHAPES, INPUTS, TUNED)
def kernel(x, wg, wu):
    return mm.fused_matmul(x, (wg, wu), lambda g, u: mm.gelu(g) * u, name=NAME)


def flops(shapes):
    (m, k), (_, n) = shapes["x"], shapes["wg"]
    return 2 * (2 * m * n * k) + (mm.GELU_FLOPS + 1) * m * n


def bytes_moved(shapes, itemsize=4):
    # x, wg and wu read once and the output written once, floats at `itemsize` bytes (4 at
    # float32, 2 at bfloat16/float16).
    (m, k), (_, n) = shapes["x"], shapes["wg"]
    return itemsize * (m * k + 2 * k * n + m * n)
