"""softplus: log(1 + exp(x)) in the stable form, elementwise over a float matrix.

An elementwise-family task (pallasbench/task/families/elementwise.py: x ~ N(0, 1), the float-map
stress cases, one read and one write an element), computed in float32 at every dtype
(map_float32). max(x, 0) + log1p(exp(-|x|)) never overflows and keeps the tail accurate.
"""

import jax
import jax.numpy as jnp

from pallasbench import task as tl
from pallasbench.kernels import elementwise
from pallasbench.kernels import mosaic_elementwise
from pallasbench.task.families.elementwise import (INPUTS, ORDER_DEPENDENT, STRESS, USES_TF32, bytes_moved,
                                                  elements, make_inputs)

NAME = "softplus"
LEVEL = 1
CATEGORY = "activation"
SHAPES = tl.sizes(medium={"x": (4096, 4096)})
TOLERANCE = tl.TRANSCENDENTAL


def reference(x):
    return jax.nn.softplus(x)


def _softplus(x):
    return jnp.maximum(x, 0.0) + jnp.log1p(jnp.exp(-jnp.abs(x)))


def kernel(x):
    return elementwise.map_float32(_softplus, x, name=NAME)


# The Mosaic GPU implementation (plgpu.kernel, kernels/mosaic_elementwise.py): the preferred backend.
BACKENDS = {"mosaic_gpu": mosaic_elementwise.KERNELS[NAME], "triton": kernel}


def flops(shapes):
    return 4 * elements(shapes)  # max, exp, log1p, add
