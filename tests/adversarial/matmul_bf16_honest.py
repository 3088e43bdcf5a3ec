"""HONEST (bfloat16 tier) a matmul for `--dtype bfloat16`: bf16 operand blocks straight into the
dot (the tensor-core path), float32 accumulation, one rounding to bf16 on the store.

Expected at bfloat16: ok, every filter passes.
"""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

BLOCK = 64


def _matmul(a_ref, b_ref, o_ref):
    acc = jnp.zeros((BLOCK, BLOCK), jnp.float32)
    for k in range(a_ref.shape[1] // BLOCK):
        a = a_ref[:, k * BLOCK:(k + 1) * BLOCK]
        b = b_ref[k * BLOCK:(k + 1) * BLOCK, :]
        acc += jnp.dot(a, b, preferred_element_type=jnp.float32)
    o_ref[...] = acc.astype(o_ref.dtype)


def kernel(a, b):
    m, k = a.shape
    _, n = b.shape
    return pl.pallas_call(
        _matmul, out_shape=jax.ShapeDtypeStruct((m, n), a.dtype), grid=(m // BLOCK, n // BLOCK),
        in_specs=[pl.BlockSpec((BLOCK, k), lambda i, j: (i, 0)), pl.BlockSpec((k, BLOCK), lambda i, j: (0, j))],
        out_specs=pl.BlockSpec((BLOCK, BLOCK), lambda i, j: (i, j)),
        compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(a, b)
