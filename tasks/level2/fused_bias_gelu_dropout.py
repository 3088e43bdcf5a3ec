"""fused_bias_gelu_dropout: gelu(x + b) * keep / 0.9, keep a uint8 Bernoulli(0.9) mask.

Memory-bound: x (f32) and keep (u8) are read once, the result written once; bias, gelu and the
dropout scale all happen in registers. Row-major blocks span whole rows (contiguous loads), the
bias slice rides along as a 1-D block. Ragged shapes are zero-padded outside to whole blocks.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

from pallasbench import tasklib as tl

NAME = "fused_bias_gelu_dropout"
LEVEL = 2
CATEGORY = "activation"
INPUTS = (tl.Input("x", tl.REAL), tl.Input("b", tl.REAL), tl.Input("keep", tl.DISCRETE))
SHAPES = tl.sizes(medium={"x": (4096, 4096), "b": (4096,), "keep": (4096, 4096)})
TOLERANCE = tl.TRANSCENDENTAL
USES_TF32 = False
ORDER_DEPENDENT = False
STRESS = tl.stress("tiny", "large", "degenerate", offset=tl.NO_ROW_STATISTIC,
                   distinct="keep is a 0/1 mask: all-distinct is impossible")

KEEP_PROB = 0.9
# add, gelu (x^3: 2, *0.044715, +x, *sqrt(2/pi), tanh, +1, *0.5, *x), *keep, /0.9
FLOPS_PER_ELEMENT = 12


def make_inputs(rng, shapes):
    return (tl.normal(rng, shapes["x"]), tl.normal(rng, shapes["b"]),
            tl.bernoulli(rng, shapes["keep"], KEEP_PROB))


def reference(x, b, keep):
    return jax.nn.gelu(x + b, approximate=True) * keep.astype(jnp.float32) / KEEP_PROB


def _body(x_ref, b_ref, keep_ref, o_ref):
    g = jax.nn.gelu(x_ref[...] + b_ref[...][None, :], approximate=True)
    o_ref[...] = g * keep_ref[...].astype(jnp.float32) / KEEP_PROB


def kernel(x, b, keep):
    rows, cols = x.shape
    br, bc = tl.block_2d(x.shape, x.dtype.itemsize, allow_ragged=True)  # padded below
    prows, pcols = tl.cdiv(rows, br) * br, tl.cdiv(cols, bc) * bc
    if (prows, pcols) != (rows, cols):  # whole blocks only: the GPU does not mask edge stores
        pad = ((0, prows - rows), (0, pcols - cols))
        x, keep, b = jnp.pad(x, pad), jnp.pad(keep, pad), jnp.pad(b, (0, pcols - cols))
    tile = pl.BlockSpec((br, bc), lambda i, j: (i, j))
    out = pl.pallas_call(
        _body,
        out_shape=jax.ShapeDtypeStruct((prows, pcols), x.dtype),
        grid=(prows // br, pcols // bc),
        in_specs=[tile, pl.BlockSpec((bc,), lambda i, j: (j,)), tile],
        out_specs=tile,
        # tl.block_2d's 8K-element blocks over 8 warps: 32 values per thread, no spills.
        compiler_params=tl.triton_params(num_warps=8, num_stages=1),
        name=NAME,
    )(x, b, keep)
    return out[:rows, :cols]


def flops(shapes):
    rows, cols = shapes["x"]
    return FLOPS_PER_ELEMENT * rows * cols


def bytes_moved(shapes):
    rows, cols = shapes["x"]
    return rows * cols * (4 + 1 + 4) + cols * 4
