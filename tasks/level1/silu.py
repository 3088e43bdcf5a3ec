"""silu: x * sigmoid(x), elementwise over a float matrix.

An elementwise-family task (pallasbench/task/families/elementwise.py: x ~ N(0, 1), the float-map
stress cases, one read and one write an element), computed in float32 at every dtype
(map_float32). x / (1 + exp(-x)) costs one exp and one divide; for very negative x it gives -0,
not NaN.
"""

import jax
import jax.numpy as jnp

from pallasbench import task as tl
from pallasbench.kernels import elementwise
from pallasbench.kernels import mosaic_elementwise
from pallasbench.task.families.elementwise import (INPUTS, ORDER_DEPENDENT, STRESS, USES_TF32, bytes_moved,
                                                  elements, make_inputs)

NAME = "silu"
LEVEL = 1
CATEGORY = "activation"
SHAPES = tl.sizes(medium={"x": (4096, 4096)})
TOLERANCE = tl.TRANSCENDENTAL


def reference(x):
    return jax.nn.silu(x)


def _silu(x):
    return x / (1.0 + jnp.exp(-x))


def kernel(x):
    return elementwise.map_float32(_silu, x, name=NAME)


# The Mosaic GPU implementation (plgpu.kernel, kernels/mosaic_elementwise.py): the preferred backend.
BACKENDS = {"mosaic_gpu": mosaic_elementwise.KERNELS[NAME], "triton": kernel}


def flops(shapes):
    return 4 * elements(shapes)  # exp, add, divide, multiply
