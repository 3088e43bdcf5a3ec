"""clamp: clip(x, -1, 1), elementwise over a float matrix (N(0, 4)).

An elementwise-family task (pallasbench/task/families/elementwise.py: the float-map stress cases,
one read and one write an element; x drawn at std 2 here). A streaming body (stream=True: 128 KB
blocks at LARGE). Exact at every dtype (it selects values), so it runs in the input's dtype
(map_exact).
"""

import jax.numpy as jnp

from pallasbench import task as tl
from pallasbench.kernels import elementwise
from pallasbench.kernels import mosaic_elementwise
from pallasbench.task.families.elementwise import INPUTS, ORDER_DEPENDENT, STRESS, USES_TF32, bytes_moved, elements

NAME = "clamp"
LEVEL = 1
CATEGORY = "elementwise"
SHAPES = tl.sizes(medium={"x": (4096, 4096)})
TOLERANCE = tl.ELEMENTWISE


def make_inputs(rng, shapes):
    return (tl.normal(rng, shapes["x"], 2.0),)


def reference(x):
    return jnp.clip(x, -1.0, 1.0)


def kernel(x):
    return elementwise.map_exact(lambda v: jnp.clip(v, -1.0, 1.0), x, stream=True, name=NAME)


# The Mosaic GPU implementation (plgpu.kernel, kernels/mosaic_elementwise.py): the preferred backend.
BACKENDS = {"mosaic_gpu": mosaic_elementwise.KERNELS[NAME], "triton": kernel}


def flops(shapes):
    return 2 * elements(shapes)  # max, min
