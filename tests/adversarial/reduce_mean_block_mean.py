"""DEGENERATE (g) near-constant output on reduce_mean: each program averages its whole
(32, 256) block and writes that one number to all 32 of its rows.

The reference's row means are all near 0 (std ~0.06 at SMALL); the block means are nearer
still (std ~0.01), so the output is a near-constant, piecewise-flat vector. Correctness says
`incorrect` (errors ~0.06 against a 1e-5 tolerance). Filters: output_range and output_std
(spread ~1/6 of the reference's), input_impact (a perturbation moves the output ~6x less
than the reference). axes_variation is not expected to fire: the 1-D output still varies.
"""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton


def _block_mean(x_ref, o_ref):
    x = x_ref[...]
    total = jnp.sum(jnp.sum(x, axis=1), axis=0)
    o_ref[...] = jnp.full(o_ref.shape, total / x.size, jnp.float32)


def kernel(x):
    rows, cols = x.shape
    br = max(1, min(rows, 8192 // cols))
    return pl.pallas_call(_block_mean, out_shape=jax.ShapeDtypeStruct((rows,), x.dtype),
                          grid=(rows // br,),
                          in_specs=[pl.BlockSpec((br, cols), lambda i: (i, 0))],
                          out_specs=pl.BlockSpec((br,), lambda i: (i,)),
                          compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(x)
