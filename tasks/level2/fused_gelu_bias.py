"""fused_gelu_bias: gelu(x + b) (tanh approximation), b broadcast along rows.

Memory-bound: x is read once and the result written once; the bias add never round-trips
through memory. Row-major blocks span whole rows (contiguous 16-byte loads), the matching
bias slice rides along as a 1-D block. Ragged shapes are zero-padded outside to whole blocks.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

from pallasbench import tasklib as tl

NAME = "fused_gelu_bias"
LEVEL = 2
CATEGORY = "activation"
INPUTS = (tl.Input("x", tl.REAL), tl.Input("b", tl.REAL))
SHAPES = tl.sizes(medium={"x": (4096, 4096), "b": (4096,)})
TOLERANCE = tl.TRANSCENDENTAL
USES_TF32 = False
ORDER_DEPENDENT = False
STRESS = tl.stress("tiny", "large", offset=tl.NO_ROW_STATISTIC,
                   degenerate=tl.NO_DISCRETE_INPUT, distinct=tl.NO_DISCRETE_INPUT)

# add, x^3 (2), *0.044715, +x, *sqrt(2/pi), tanh, +1, *0.5, *x
FLOPS_PER_ELEMENT = 10


def make_inputs(rng, shapes):
    return tl.normal(rng, shapes["x"]), tl.normal(rng, shapes["b"])


def reference(x, b):
    return jax.nn.gelu(x + b, approximate=True)


def _body(x_ref, b_ref, o_ref):
    o_ref[...] = jax.nn.gelu(x_ref[...] + b_ref[...][None, :], approximate=True)


def kernel(x, b):
    rows, cols = x.shape
    br, bc = tl.block_2d(x.shape, x.dtype.itemsize, allow_ragged=True)  # padded below
    prows, pcols = tl.cdiv(rows, br) * br, tl.cdiv(cols, bc) * bc
    if (prows, pcols) != (rows, cols):  # whole blocks only: the GPU does not mask edge stores
        x = jnp.pad(x, ((0, prows - rows), (0, pcols - cols)))
        b = jnp.pad(b, (0, pcols - cols))
    out = pl.pallas_call(
        _body,
        out_shape=jax.ShapeDtypeStruct((prows, pcols), x.dtype),
        grid=(prows // br, pcols // bc),
        in_specs=[pl.BlockSpec((br, bc), lambda i, j: (i, j)),
                  pl.BlockSpec((bc,), lambda i, j: (j,))],
        out_specs=pl.BlockSpec((br, bc), lambda i, j: (i, j)),
        # tl.block_2d's 8K-element blocks over 8 warps: 32 values per thread, no spills.
        compiler_params=tl.triton_params(num_warps=8, num_stages=1),
        name=NAME,
    )(x, b)
    return out[:rows, :cols]


def flops(shapes):
    rows, cols = shapes["x"]
    return FLOPS_PER_ELEMENT * rows * cols


def bytes_moved(shapes):
    rows, cols = shapes["x"]
    return (2 * rows * cols + cols) * 4
