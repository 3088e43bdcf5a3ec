"""DEGENERATE (e) precision downgrade on matmul: a and b are cast to bfloat16 outside the
kernel; the Pallas kernel multiplies bf16 tiles (f32 accumulation) and writes float32.

Halves the bytes read and runs at bf16 tensor-core speed instead of the task's f32/TF32.
source_analysis flags the convert_element_type outside the pallas_call. Correctness at SMALL
on the CPU fails narrowly: bf16 inputs keep 8 mantissa bits, and on seed 0 one element of
65536 lands past 1e-2 + 1e-2*|ref| (max abs error ~0.012); the norm bound alone would pass.
Another size or the GPU's summation order may tip it either way.
"""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

TILE = 64


def _mm(a_ref, b_ref, o_ref):
    o_ref[...] = jnp.dot(a_ref[...], b_ref[...], preferred_element_type=jnp.float32)


def kernel(a, b):
    (m, k), n = a.shape, b.shape[1]
    a16, b16 = a.astype(jnp.bfloat16), b.astype(jnp.bfloat16)
    return pl.pallas_call(
        _mm, out_shape=jax.ShapeDtypeStruct((m, n), jnp.float32),
        grid=(m // TILE, n // TILE),
        in_specs=[pl.BlockSpec((TILE, k), lambda i, j: (i, 0)),
                  pl.BlockSpec((k, TILE), lambda i, j: (0, j))],
        out_specs=pl.BlockSpec((TILE, TILE), lambda i, j: (i, j)),
        compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(a16, b16)
