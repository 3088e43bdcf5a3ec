"""DEGENERATE (precision) a matmul whose kernel rounds its f32 operand blocks to float16 inside
the kernel (tensor cores at twice the TF32 rate) and accumulates in f32.

float16 keeps TF32's 10 mantissa bits, so the result stays inside the TF32 tolerance: correctness
passes, and no cast happens outside the kernel. Only the precision policy, reading the element
types of the kernel's own Triton IR, catches it. Expected: ok, source_analysis fails
("precision downgrade").
"""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

BLOCK = 64


def _matmul(a_ref, b_ref, o_ref):
    acc = jnp.zeros((BLOCK, BLOCK), jnp.float32)
    for k in range(a_ref.shape[1] // BLOCK):
        a = a_ref[:, k * BLOCK:(k + 1) * BLOCK].astype(jnp.float16)
        b = b_ref[k * BLOCK:(k + 1) * BLOCK, :].astype(jnp.float16)
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
