"""relu: max(x, 0), elementwise over a float matrix.

An elementwise-family task (pallasbench/task/families/elementwise.py: x ~ N(0, 1), the float-map
stress cases, one read and one write an element). A streaming body (stream=True: 128 KB blocks
at LARGE, kernels/elementwise.py). Exact at every dtype (it selects values), so it runs in the
input's dtype (map_exact).
"""

import jax.numpy as jnp

from pallasbench import task as tl
from pallasbench.kernels import elementwise
from pallasbench.kernels import mosaic_elementwise
from pallasbench.task.families.elementwise import (INPUTS, ORDER_DEPENDENT, STRESS, USES_TF32, bytes_moved,
                                                  elements, make_inputs)

NAME = "relu"
LEVEL = 1
CATEGORY = "activation"
SHAPES = tl.sizes(medium={"x": (4096, 4096)}, small={"x": (512, 512)},
                  large={"x": (16384, 16384)})
TOLERANCE = tl.ELEMENTWISE


def reference(x):
    return jnp.maximum(x, 0.0)


def kernel(x):
    return elementwise.map_exact(lambda v: jnp.maximum(v, 0.0), x, stream=True, name=NAME)


# The Mosaic GPU implementation (plgpu.kernel, kernels/mosaic_elementwise.py): the preferred backend.
BACKENDS = {"mosaic_gpu": mosaic_elementwise.KERNELS[NAME], "triton": kernel}


def flops(shapes):
    return elements(shapes)  # one maximum
