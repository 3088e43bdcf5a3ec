"""hardswish: x * clip(x + 3, 0, 6) / 6, elementwise over a float matrix (N(0, 9)).

An elementwise-family task (pallasbench/task/families/elementwise.py: the float-map stress cases,
one read and one write an element; x drawn at std 3 here).
A streaming body (stream=True: 128 KB blocks at LARGE), computed in float32 at every dtype
(map_float32), in the reference's operation order.
"""

import jax.numpy as jnp

from pallasbench import task as tl
from pallasbench.kernels import elementwise
from pallasbench.kernels import mosaic_elementwise
from pallasbench.task.families.elementwise import INPUTS, ORDER_DEPENDENT, STRESS, USES_TF32, bytes_moved, elements

NAME = "hardswish"
LEVEL = 1
CATEGORY = "activation"
SHAPES = tl.sizes(medium={"x": (4096, 4096)})
TOLERANCE = tl.ELEMENTWISE


def make_inputs(rng, shapes):
    return (tl.normal(rng, shapes["x"], 3.0),)


def reference(x):
    return x * jnp.clip(x + 3.0, 0.0, 6.0) / 6.0


def _hardswish(x):
    return x * jnp.clip(x + 3.0, 0.0, 6.0) / 6.0


def kernel(x):
    return elementwise.map_float32(_hardswish, x, stream=True, name=NAME)


# The Mosaic GPU implementation (plgpu.kernel, kernels/mosaic_elementwise.py): the preferred backend.
BACKENDS = {"mosaic_gpu": mosaic_elementwise.KERNELS[NAME], "triton": kernel}


def flops(shapes):
    return 5 * elements(shapes)  # add, max, min, multiply, divide
