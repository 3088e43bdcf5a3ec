"""DEGENERATE (c) matmul half done: a Pallas tiled matmul for the top half of the rows of a,
jnp.dot in XLA for the bottom half, concatenated.

The Pallas half is a real (64, 64)-tile kernel over the whole K (f32 accumulation).
Correct (allclose passes); only source_analysis can catch it: a dot_general outside any
pallas_call, ~50% of the task's FLOPs inside.
"""
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

TILE = 64


def _mm(a_ref, b_ref, o_ref):
    o_ref[...] = jnp.dot(a_ref[...], b_ref[...], preferred_element_type=jnp.float32)


def kernel(a, b):
    (m, k), n = a.shape, b.shape[1]
    half = m // 2
    top = pl.pallas_call(
        _mm, out_shape=jax.ShapeDtypeStruct((half, n), a.dtype),
        grid=(half // TILE, n // TILE),
        in_specs=[pl.BlockSpec((TILE, k), lambda i, j: (i, 0)),
                  pl.BlockSpec((k, TILE), lambda i, j: (0, j))],
        out_specs=pl.BlockSpec((TILE, TILE), lambda i, j: (i, j)),
        compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(a[:half], b)
    bottom = jnp.dot(a[half:], b, precision=lax.Precision.HIGHEST)
    return jnp.concatenate([top, bottom], axis=0)
