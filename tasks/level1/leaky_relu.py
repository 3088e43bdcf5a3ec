"""leaky_relu: x >= 0 ? x : 0.01x, elementwise over a float32 matrix.

Memory-bound: one read and one write per element. The kernel streams row-major blocks of 8K
elements whose column extent covers whole rows (contiguous 16-byte loads); ragged edges are
masked by Pallas.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

from pallasbench import tasklib as tl

NAME = "leaky_relu"
LEVEL = 1
CATEGORY = "activation"
INPUTS = (tl.Input("x", tl.REAL),)
SHAPES = tl.sizes(medium={"x": (4096, 4096)})
TOLERANCE = tl.ELEMENTWISE
USES_TF32 = False
ORDER_DEPENDENT = False
STRESS = tl.stress("tiny", "large", offset=tl.NO_ROW_STATISTIC,
                   degenerate=tl.NO_DISCRETE_INPUT, distinct=tl.NO_DISCRETE_INPUT)


def make_inputs(rng, shapes):
    return (tl.normal(rng, shapes["x"]),)


def reference(x):
    return jnp.where(x >= 0, x, 0.01 * x)


def _leaky_relu_body(x_ref, o_ref):
    x = x_ref[...]
    o_ref[...] = jnp.where(x >= 0, x, 0.01 * x)


def kernel(x):
    rows, cols = x.shape
    # 8K-element blocks over 8 warps: 32 elements (eight 16-byte loads) per thread keeps many
    # bytes in flight per SM while leaving registers for the arithmetic.
    br, bc = tl.block_2d(x.shape, x.dtype.itemsize, budget_bytes=32 * 1024)
    spec = pl.BlockSpec((br, bc), lambda i, j: (i, j))
    return pl.pallas_call(
        _leaky_relu_body,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(tl.cdiv(rows, br), tl.cdiv(cols, bc)),
        in_specs=[spec],
        out_specs=spec,
        compiler_params=tl.triton_params(num_warps=8, num_stages=1),
    )(x)


def flops(shapes):
    rows, cols = shapes["x"]
    return 2 * rows * cols  # compare, multiply


def bytes_moved(shapes):
    rows, cols = shapes["x"]
    return 2 * rows * cols * 4
