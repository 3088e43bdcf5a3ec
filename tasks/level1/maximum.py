"""maximum: max(x, y), elementwise over two float matrices.

An elementwise-family task (pallasbench/task/families/elementwise.py: x, y ~ N(0, 1), the
float-map stress cases, two reads and one write an element). A streaming body (stream=True:
128 KB blocks at LARGE). Exact at every dtype (it selects values), so it runs in the input's
dtype (map_exact).
"""

import jax.numpy as jnp

from pallasbench import task as tl
from pallasbench.kernels import elementwise
from pallasbench.kernels import mosaic_elementwise
from pallasbench.task.families.elementwise import ORDER_DEPENDENT, STRESS, USES_TF32, bytes_moved, elements
from pallasbench.task.families.elementwise import BINARY_INPUTS as INPUTS, make_binary_inputs as make_inputs

NAME = "maximum"
LEVEL = 1
CATEGORY = "elementwise"
SHAPES = tl.sizes(medium={"x": (4096, 4096), "y": (4096, 4096)})
TOLERANCE = tl.ELEMENTWISE


def reference(x, y):
    return jnp.maximum(x, y)


def kernel(x, y):
    return elementwise.map_exact(jnp.maximum, x, y, stream=True, name=NAME)


# The Mosaic GPU implementation (plgpu.kernel, kernels/mosaic_elementwise.py): the preferred backend.
BACKENDS = {"mosaic_gpu": mosaic_elementwise.KERNELS[NAME], "triton": kernel}


def flops(shapes):
    return elements(shapes)  # one maximum
