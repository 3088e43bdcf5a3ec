"""PRECISION (below the class, as accurate) a matmul whose kernel rounds its f32 operand blocks to
float16 inside the kernel (tensor cores at twice the TF32 rate) and accumulates in f32.

float16 keeps TF32's 10 mantissa bits, and the matmul stress cases (x1e-3, x1e3) stay inside its
range. Its element types put it below the task's precision class, so every case is judged by the
platform's bound alone: its error is XLA's own at TF32 on every case, within 4x (once refused for
its types; the rule is the accuracy they give: docs/measurement.md). Expected: ok, robust; the
record's precision shows the f16 types and correctness.below_class.
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
