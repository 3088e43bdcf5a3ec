"""exp: exp(x), elementwise over a float matrix.

An elementwise-family task (pallasbench/task/families/elementwise.py: x ~ N(0, 1), one read and
one write an element) whose large stress case scales x by 10, not the family's 30, so the
reference stays finite (exp(30x) overflows float32 from x > 2.96). A streaming body
(stream=True: 128 KB blocks at LARGE), computed in float32 at every dtype (map_float32).
"""

import jax.numpy as jnp

from pallasbench import task as tl
from pallasbench.kernels import elementwise
from pallasbench.kernels import mosaic_elementwise
from pallasbench.task.families.elementwise import (INPUTS, ORDER_DEPENDENT, USES_TF32, bytes_moved, elements,
                                                  make_inputs)

NAME = "exp"
LEVEL = 1
CATEGORY = "elementwise"
SHAPES = tl.sizes(medium={"x": (4096, 4096)})
TOLERANCE = tl.ELEMENTWISE
STRESS = tl.stress_cases("tiny", "large", large_factor=10.0, offset=tl.NO_ROW_STATISTIC,
                         degenerate=tl.NO_DISCRETE_INPUT, distinct=tl.NO_DISCRETE_INPUT)


def reference(x):
    return jnp.exp(x)


def kernel(x):
    return elementwise.map_float32(jnp.exp, x, stream=True, name=NAME)


# The Mosaic GPU implementation (plgpu.kernel, kernels/mosaic_elementwise.py): the preferred backend.
BACKENDS = {"mosaic_gpu": mosaic_elementwise.KERNELS[NAME], "triton": kernel}


def flops(shapes):
    return elements(shapes)  # one exp
