"""gelu: jax.nn.gelu with the tanh approximation, elementwise over a float matrix.

An elementwise-family task (pallasbench/task/families/elementwise.py: x ~ N(0, 1), the float-map
stress cases, one read and one write an element), computed in float32 at every dtype
(map_float32). The body is the reference's tanh formula.
"""

import jax
import jax.numpy as jnp
import numpy as np

from pallasbench import task as tl
from pallasbench.kernels import elementwise
from pallasbench.kernels import mosaic_elementwise
from pallasbench.task.families.elementwise import (INPUTS, ORDER_DEPENDENT, STRESS, USES_TF32, bytes_moved,
                                                  elements, make_inputs)

NAME = "gelu"
LEVEL = 1
CATEGORY = "activation"
SHAPES = tl.sizes(medium={"x": (4096, 4096)})
TOLERANCE = tl.TRANSCENDENTAL

# Rounded to float32 exactly as jax.nn.gelu rounds it.
_SQRT_2_OVER_PI = float(np.float32(np.sqrt(2.0 / np.pi)))


def reference(x):
    return jax.nn.gelu(x, approximate=True)


def _gelu(x):
    cdf = 0.5 * (1.0 + jnp.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * (x * x * x))))
    return x * cdf


def kernel(x):
    return elementwise.map_float32(_gelu, x, name=NAME)


# The Mosaic GPU implementation (plgpu.kernel, kernels/mosaic_elementwise.py): the preferred backend.
BACKENDS = {"mosaic_gpu": mosaic_elementwise.KERNELS[NAME], "triton": kernel}


def flops(shapes):
    return 9 * elements(shapes)  # cube (2), scale, add, scale, tanh, add, halve, multiply
