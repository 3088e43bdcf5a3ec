"""matmul_silu: silu(x @ w) = (x @ w) * sigmoid(x @ w).

One pallas_call: (bm, bn) output tiles (128x128, halved toward 32x32 while the grid would leave
SMs idle), K walked in 32-wide steps by an in-kernel fori_loop into a float32 accumulator, silu
applied in the epilogue before the single store.
Dots run on TF32 tensor cores (Triton's default f32 precision), operands rounded to nearest
TF32 in the kernel first (Triton would truncate them: a ~1e-3 bias per matmul).
"""

import jax

from pallasbench import tasklib as tl
from pallasbench.kernels import tiled_matmul as mm

NAME = "matmul_silu"
LEVEL = 2
CATEGORY = "matmul_activation"
INPUTS = (tl.Input("x", tl.REAL), tl.Input("w", tl.REAL))
SHAPES = tl.sizes(medium={"x": (1024, 1024), "w": (1024, 1024)})
TOLERANCE = tl.MATMUL
USES_TF32 = True
ORDER_DEPENDENT = False


def make_inputs(rng, shapes):
    return tl.normal(rng, shapes["x"]), tl.weight(rng, shapes["w"])


def reference(x, w):
    return jax.nn.silu(x @ w)


def kernel(x, w):
    return mm.fused_matmul(x, (w,), mm.silu, name=NAME)


def flops(shapes):
    (m, k), (_, n) = shapes["x"], shapes["w"]
    return 2 * m * n * k + mm.SILU_FLOPS * m * n


def bytes_moved(shapes):
    (m, k), (_, n) = shapes["x"], shapes["w"]
    return 4 * (m * k + k * n + m * n)
