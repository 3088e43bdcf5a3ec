"""DEGENERATE (e) precision downgrade on matmul: a and b are cast to float16 outside the kernel;
the Pallas kernel multiplies f16 (64, K) x (K, 64) tiles with f32 accumulation.

float16 keeps the 10 mantissa bits of TF32, so the result is inside the MATMUL tolerance and
correctness says `ok` (allclose passes). The casts are cheap next to the 2*M*N*K FLOPs (well
under 1% of the task's work), so only a rule that forbids casts outside pallas_call, not the
outside-work fraction, catches it: source_analysis.
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
    a16, b16 = a.astype(jnp.float16), b.astype(jnp.float16)
    return pl.pallas_call(
        _mm, out_shape=jax.ShapeDtypeStruct((m, n), jnp.float32),
        grid=(m // TILE, n // TILE),
        in_specs=[pl.BlockSpec((TILE, k), lambda i, j: (i, 0)),
                  pl.BlockSpec((k, TILE), lambda i, j: (0, j))],
        out_specs=pl.BlockSpec((TILE, TILE), lambda i, j: (i, j)),
        compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(a16, b16)
