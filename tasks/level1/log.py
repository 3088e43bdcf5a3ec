"""log: log(x) of a positive float matrix, log-uniform in [1e-3, 1e3].

An elementwise-family task (pallasbench/task/families/elementwise.py: its positive input, the
float-map stress cases, one read and one write an element), computed in float32 at every dtype
(map_float32).
"""

import jax.numpy as jnp

from pallasbench import task as tl
from pallasbench.kernels import elementwise
from pallasbench.kernels import mosaic_elementwise
from pallasbench.task.families.elementwise import ORDER_DEPENDENT, STRESS, USES_TF32, bytes_moved, elements
from pallasbench.task.families.elementwise import POSITIVE_INPUTS as INPUTS, make_positive_inputs as make_inputs

NAME = "log"
LEVEL = 1
CATEGORY = "elementwise"
SHAPES = tl.sizes(medium={"x": (4096, 4096)})
TOLERANCE = tl.ELEMENTWISE


def reference(x):
    return jnp.log(x)


def kernel(x):
    return elementwise.map_float32(jnp.log, x, name=NAME)


# The Mosaic GPU implementation (plgpu.kernel, kernels/mosaic_elementwise.py): the preferred backend.
BACKENDS = {"mosaic_gpu": mosaic_elementwise.KERNELS[NAME], "triton": kernel}


def flops(shapes):
    return elements(shapes)  # one log
