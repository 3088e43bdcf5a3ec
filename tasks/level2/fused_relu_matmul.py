"""fused_relu_matmul: relu(x) @ w.

At float32 a packing pass first writes w transposed, K-major (tiled_matmul.pack_weights: TF32 wgmma reads
shared memory K-major only; N-major tiles ran 3x slower). Then one pallas_call: (bm, bn) output
tiles (128x128, halved while the grid would leave SMs idle), K walked in 32-wide steps by an
in-kernel fori_loop into a float32 accumulator, relu applied to each x tile as it is loaded,
before its dot: relu(x) never goes to memory.
Dots run on TF32 tensor cores (precision DEFAULT; Triton rounds the operands to nearest TF32
itself, cvt.rna): relative error 2.9e-4 on the H200 at LARGE, against 2e-3.
At bfloat16/float16 the dots take the 16-bit operands as they are (tensor cores, float32
accumulator, 64-wide K steps); the epilogue is float32, the tile rounded once on store.
No packing pass at bfloat16/float16: 16-bit wgmma reads the (K, N) weights as they are (one
dot per weight and step; tiled_matmul.packs_weights).

Shipped configuration: the TUNED table (tiled_matmul.TUNED_SQUARE_PROLOGUE) sets these choices
at the task's MEDIUM and LARGE shapes per dtype (float16 takes bfloat16's); any other shape takes
the defaults above. At float32 it runs the Mosaic GPU kernel (TMA, wgmma, warp specialised;
kernels/mosaic_matmul.py) with matmul's probed tiles: the operands reach shared memory by TMA
with no step in between, so relu(x) is one Pallas pass of its own (rounded to nearest TF32 on
the way, where wgmma would truncate) and goes to memory once; so does LARGE bfloat16. Other
16-bit entries keep the Triton kernel above. Each record's kernel_config says which values ran.
"""

import jax.numpy as jnp

from pallasbench import task as tl
from pallasbench.task import tuning
from pallasbench.kernels import tiled_matmul as mm

NAME = "fused_relu_matmul"
LEVEL = 2
CATEGORY = "matmul_activation"
INPUTS = (tl.Input("x", tl.REAL), tl.Input("w", tl.REAL))
SHAPES = tl.sizes(medium={"x": (1024, 1024), "w": (1024, 1024)})
TOLERANCE = tl.MATMUL
USES_TF32 = True
ORDER_DEPENDENT = False
STRESS = tl.stress_cases("tiny", "large", large_factor=1e3, offset=tl.NO_ROW_STATISTIC,
                         degenerate=tl.NO_DISCRETE_INPUT, distinct=tl.NO_DISCRETE_INPUT)


def make_inputs(rng, shapes):
    return tl.normal(rng, shapes["x"]), tl.weight(rng, shapes["w"])


def reference(x, w):
    return jnp.maximum(x, 0.0) @ w


# matmul's probed configurations, the relu a pass of its own at float32 (tiled_matmul.TUNED_SQUARE_PROLOGUE).
TUNED = mm.TUNED_SQUARE_PROLOGUE


@tuning.tuned_kernel(NAME, SHAPES, INPUTS, TUNED)
def kernel(x, w):
    return mm.fused_matmul(x, (w,), lambda acc: acc, prologue=mm.relu, name=NAME)


def flops(shapes):
    (m, k), (_, n) = shapes["x"], shapes["w"]
    return 2 * m * n * k + mm.RELU_FLOPS * m * k


def bytes_moved(shapes, itemsize=4):
    # x and w read once and the output written once, floats at `itemsize` bytes (4 at float32,
    # 2 at bfloat16/float16).
    (m, k), (_, n) = shapes["x"], shapes["w"]
    return itemsize * (m * k + k * n + m * n)
