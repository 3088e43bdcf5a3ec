"""HONEST fused_gelu_bias: gelu(x + b) (tanh approximation), two inputs, one Pallas kernel.

(16, 512)-element tiles of x with the matching slice of the bias vector b; the add and the
gelu are fused. Expected: correct and robust (input_impact sees both x and b used).
"""
import math

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

# Rounded to float32 exactly as jax.nn.gelu rounds it.
SQRT_2_OVER_PI = float(np.float32(math.sqrt(2.0 / math.pi)))
BLOCK_ELEMS = 8192


def _body(x_ref, b_ref, o_ref):
    z = x_ref[...] + b_ref[...][None, :]
    o_ref[...] = 0.5 * z * (1.0 + jnp.tanh(SQRT_2_OVER_PI * (z + 0.044715 * (z * z * z))))


def kernel(x, b):
    rows, cols = x.shape
    bc = min(cols, 512)
    br = min(rows, BLOCK_ELEMS // bc)
    if rows % br or cols % bc:
        raise ValueError(f"block ({br}, {bc}) does not divide {x.shape}")
    return pl.pallas_call(
        _body,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(rows // br, cols // bc),
        in_specs=[pl.BlockSpec((br, bc), lambda i, j: (i, j)),
                  pl.BlockSpec((bc,), lambda i, j: (j,))],
        out_specs=pl.BlockSpec((br, bc), lambda i, j: (i, j)),
        compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1),
    )(x, b)
