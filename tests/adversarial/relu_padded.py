"""HONEST relu padded to a block multiple outside the kernel.

The kernel runs (8, 1024) blocks, wider than SMALL's 512 columns: x is zero-padded at the high
end of each dimension to a whole number of blocks (jnp.pad), the kernel maps relu over the
padded array, and the result is sliced back to x's shape. Padding at the high end and a prefix
slice leave every element at its index: no data moves (docs/filters.md, "Data movement").
Expected: correct and robust.
"""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

BLOCK = (8, 1024)


def _relu_body(x_ref, o_ref):
    o_ref[...] = jnp.maximum(x_ref[...], 0.0)


def kernel(x):
    rows, cols = x.shape
    prows, pcols = -(-rows // BLOCK[0]) * BLOCK[0], -(-cols // BLOCK[1]) * BLOCK[1]
    padded = jnp.pad(x, ((0, prows - rows), (0, pcols - cols)))
    spec = pl.BlockSpec(BLOCK, lambda i, j: (i, j))
    out = pl.pallas_call(
        _relu_body,
        out_shape=jax.ShapeDtypeStruct(padded.shape, x.dtype),
        grid=(prows // BLOCK[0], pcols // BLOCK[1]),
        in_specs=[spec],
        out_specs=spec,
        compiler_params=pltriton.CompilerParams(num_warps=8, num_stages=1),
    )(padded)
    return out[:rows, :cols]
