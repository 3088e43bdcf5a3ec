"""DEGENERATE (precision) a matmul whose kernel rounds its f32 operand blocks to bfloat16 inside the
kernel (tensor cores at twice the TF32 rate, no cast outside) and accumulates in f32.

bfloat16 keeps 7 mantissa bits of TF32's 10: the error is ~8x XLA's own at TF32 on every input,
which still fits the TF32 tolerance on N(0, 1) seeds (the tolerance is written for the class, not
for a cheaper type that happens to fit it). Below the task's precision class, each case is judged
by the platform's bound alone (4x XLA's error). Expected: incorrect, "computes below the task's
precision class".
"""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

BLOCK = 64


def _matmul(a_ref, b_ref, o_ref):
    acc = jnp.zeros((BLOCK, BLOCK), jnp.float32)
    for k in range(a_ref.shape[1] // BLOCK):
        a = a_ref[:, k * BLOCK:(k + 1) * BLOCK].astype(jnp.bfloat16)
        b = b_ref[k * BLOCK:(k + 1) * BLOCK, :].astype(jnp.bfloat16)
        acc += jnp.dot(a, b, preferred_element_type=jnp.float32)
    o_ref[...] = acc


def kernel(a, b):
    m, k = a.shape
    _, n = b.shape
    return pl.pallas_call(
        _matmul, out_shape=jax.ShapeDtypeStruct((m, n), jnp.float32), grid=(m // BLOCK, n // BLOCK),
        in_specs=[pl.BlockSpec((BLOCK, k), lambda i, j: (i, 0)), pl.BlockSpec((k, BLOCK), lambda i, j: (0, j))],
        out_specs=pl.BlockSpec((BLOCK, BLOCK), lambda i, j: (i, j)),
        compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(a, b)
