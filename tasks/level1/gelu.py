"""gelu: jax.nn.gelu with the tanh approximation, elementwise over a float32 matrix.

Memory-bound: one read and one write per element. The kernel streams row-major blocks of 8K
elements whose column extent covers whole rows (contiguous 16-byte loads); ragged edges are
masked by Pallas. The body is the reference's tanh formula.
"""

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl

from pallasbench import tasklib as tl

NAME = "gelu"
LEVEL = 1
CATEGORY = "activation"
INPUTS = (tl.Input("x", tl.REAL),)
SHAPES = tl.sizes(medium={"x": (4096, 4096)})
TOLERANCE = tl.TRANSCENDENTAL
USES_TF32 = False
ORDER_DEPENDENT = False
STRESS = tl.stress("tiny", "large", offset=tl.NO_ROW_STATISTIC,
                   degenerate=tl.NO_DISCRETE_INPUT, distinct=tl.NO_DISCRETE_INPUT)

# Rounded to float32 exactly as jax.nn.gelu rounds it.
_SQRT_2_OVER_PI = float(np.float32(np.sqrt(2.0 / np.pi)))


def make_inputs(rng, shapes):
    return (tl.normal(rng, shapes["x"]),)


def reference(x):
    return jax.nn.gelu(x, approximate=True)


def _gelu_body(x_ref, o_ref):
    x = x_ref[...]
    cdf = 0.5 * (1.0 + jnp.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * (x * x * x))))
    o_ref[...] = x * cdf


def kernel(x):
    rows, cols = x.shape
    # 8K-element blocks over 8 warps: 32 elements (eight 16-byte loads) per thread keeps many
    # bytes in flight per SM while leaving registers for the arithmetic.
    br, bc = tl.block_2d(x.shape, x.dtype.itemsize, budget_bytes=32 * 1024)
    spec = pl.BlockSpec((br, bc), lambda i, j: (i, j))
    return pl.pallas_call(
        _gelu_body,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(tl.cdiv(rows, br), tl.cdiv(cols, bc)),
        in_specs=[spec],
        out_specs=spec,
        compiler_params=tl.triton_params(num_warps=8, num_stages=1),
    )(x)


def flops(shapes):
    rows, cols = shapes["x"]
    return 9 * rows * cols  # cube (2), scale, add, scale, tanh, add, halve, multiply


def bytes_moved(shapes):
    rows, cols = shapes["x"]
    return 2 * rows * cols * 4
