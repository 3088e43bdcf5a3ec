"""geglu: gelu(x @ wg) * (x @ wu).

One pallas_call computes both projections and the gate: each program owns one (bm, bn) output
tile (128x64, halved while the grid would leave SMs idle), walks K in 32-wide steps with an
in-kernel fori_loop, loads each x tile once for both dots and keeps two float32 accumulators;
the epilogue applies gelu to the gate and multiplies by the up projection before the single store.
Dots run on TF32 tensor cores (Triton's default f32 precision), operands rounded to nearest
TF32 in the kernel first (Triton would truncate them: a ~1e-3 bias per matmul).
"""

import jax

from pallasbench import tasklib as tl
from pallasbench.kernels import tiled_matmul as mm

NAME = "geglu"
LEVEL = 2
CATEGORY = "mlp_fusion"
INPUTS = (tl.Input("x", tl.REAL), tl.Input("wg", tl.REAL), tl.Input("wu", tl.REAL))
SHAPES = tl.sizes(medium={"x": (512, 1024), "wg": (1024, 2048), "wu": (1024, 2048)})
TOLERANCE = tl.MATMUL
USES_TF32 = True
ORDER_DEPENDENT = False


def make_inputs(rng, shapes):
    return (tl.normal(rng, shapes["x"]), tl.weight(rng, shapes["wg"]),
            tl.weight(rng, shapes["wu"]))


def reference(x, wg, wu):
    return jax.nn.gelu(x @ wg, approximate=True) * (x @ wu)


def kernel(x, wg, wu):
    return mm.fused_matmul(x, (wg, wu), lambda g, u: mm.gelu(g) * u, name=NAME)


def flops(shapes):
    (m, k), (_, n) = shapes["x"], shapes["wg"]
    return 2 * (2 * m * n * k) + (mm.GELU_FLOPS + 1) * m * n


def bytes_moved(shapes):
    (m, k), (_, n) = shapes["x"], shapes["wg"]
    return 4 * (m * k + 2 * k * n + m * n)
