"""fused_gelu_bias: gelu(x + b) (tanh approximation), b broadcast along rows.

An elementwise-family task (pallasbench/task/families/elementwise.py: the float-map stress cases;
x, b ~ N(0, 1)). Memory-bound: x is read once and the result written once; the bias add never
round-trips through memory. Row-major blocks span whole rows (contiguous 16-byte loads), the
matching bias slice rides along as a 1-D block. Ragged shapes are zero-padded outside to whole
blocks (pad_edges). Computed in float32 at every dtype (map_float32), rounded once on store.
"""

import jax

from pallasbench import task as tl
from pallasbench.kernels import elementwise
from pallasbench.kernels import mosaic_elementwise
from pallasbench.task.families.elementwise import ORDER_DEPENDENT, STRESS, USES_TF32, bytes_moved, elements

NAME = "fused_gelu_bias"
LEVEL = 2
CATEGORY = "activation"
INPUTS = (tl.Input("x", tl.REAL), tl.Input("b", tl.REAL, weight=True))
SHAPES = tl.sizes(medium={"x": (4096, 4096), "b": (4096,)})
TOLERANCE = tl.TRANSCENDENTAL

# add, x^3 (2), *0.044715, +x, *sqrt(2/pi), tanh, +1, *0.5, *x
FLOPS_PER_ELEMENT = 10


def make_inputs(rng, shapes):
    return tl.normal(rng, shapes["x"]), tl.normal(rng, shapes["b"])


def reference(x, b):
    return jax.nn.gelu(x + b, approximate=True)


def _gelu_bias(x, b):
    return jax.nn.gelu(x + b[None, :], approximate=True)


def kernel(x, b):
    return elementwise.map_float32(_gelu_bias, x, b, pad_edges=True, name=NAME)


# The Mosaic GPU implementation (plgpu.kernel, kernels/mosaic_elementwise.py): the preferred backend.
BACKENDS = {"mosaic_gpu": mosaic_elementwise.KERNELS[NAME], "triton": kernel}


def flops(shapes):
    return FLOPS_PER_ELEMENT * elements(shapes)
