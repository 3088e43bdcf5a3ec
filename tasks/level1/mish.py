"""mish: x * tanh(softplus(x)), elementwise over a float matrix.

An elementwise-family task (pallasbench/task/families/elementwise.py: x ~ N(0, 1), the float-map
stress cases, one read and one write an element), computed in float32 at every dtype
(map_float32). tanh(log(1 + e)) is rewritten as n / (n + 2), n = e(e + 2), e = exp(x): one exp
and one divide instead of exp, log1p and tanh, so the kernel stays memory-bound.
"""

import jax
import jax.numpy as jnp

from pallasbench import task as tl
from pallasbench.kernels import elementwise
from pallasbench.kernels import mosaic_elementwise
from pallasbench.task.families.elementwise import (INPUTS, ORDER_DEPENDENT, STRESS, USES_TF32, bytes_moved,
                                                  elements, make_inputs)

NAME = "mish"
LEVEL = 1
CATEGORY = "activation"
SHAPES = tl.sizes(medium={"x": (4096, 4096)})
TOLERANCE = tl.TRANSCENDENTAL


def reference(x):
    return x * jnp.tanh(jax.nn.softplus(x))


def _mish(x):
    # Past x = 20, tanh(softplus(x)) rounds to 1 in float32; clamping there also keeps n finite.
    e = jnp.exp(jnp.minimum(x, 20.0))
    n = e * (e + 2.0)
    return jnp.where(x > 20.0, x, x * n / (n + 2.0))


def kernel(x):
    return elementwise.map_float32(_mish, x, name=NAME)


# The Mosaic GPU implementation (plgpu.kernel, kernels/mosaic_elementwise.py): the preferred backend.
BACKENDS = {"mosaic_gpu": mosaic_elementwise.KERNELS[NAME], "triton": kernel}


def flops(shapes):
    return 6 * elements(shapes)  # softplus (max, exp, log1p, add), tanh, multiply
