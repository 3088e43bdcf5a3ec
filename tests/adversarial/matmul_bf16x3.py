"""HONEST (below the class, as accurate) a matmul in the bf16x3 scheme XLA itself offers: each f32
operand block is split into bfloat16 halves, x = hi + lo (hi = bf16(x), lo = bf16(x - hi)), and the
product is hi*hi + hi*lo + lo*hi on bf16 tensor-core dots accumulated in f32 (lo*lo, ~2^-16 of
the product, is dropped).

Its kernel holds bf16 values in a float32 TF32 task: below the task's precision class, so every
case is judged by the platform's bound alone (docs/measurement.md, "Accuracy against the
platform"). Its error is ~1/60 of TF32's (about 16 mantissa bits against 10), well within 4x XLA's
own at TF32. Expected: ok, robust; the record's precision lists the bf16 types
(correctness.below_class true, every case passed_by "platform").
"""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

BLOCK = 64


def _split(x):
    hi = x.astype(jnp.bfloat16)
    return hi, (x - hi.astype(jnp.float32)).astype(jnp.bfloat16)


def _matmul(a_ref, b_ref, o_ref):
    acc = jnp.zeros((BLOCK, BLOCK), jnp.float32)
    for k in range(a_ref.shape[1] // BLOCK):
        a_hi, a_lo = _split(a_ref[:, k * BLOCK:(k + 1) * BLOCK])
        b_hi, b_lo = _split(b_ref[k * BLOCK:(k + 1) * BLOCK, :])
        for x, y in ((a_hi, b_hi), (a_hi, b_lo), (a_lo, b_hi)):
            acc += jnp.dot(x, y, preferred_element_type=jnp.float32)
    o_ref[...] = acc


def kernel(a, b):
    m, k = a.shape
    _, n = b.shape
    return pl.pallas_call(
        _matmul, out_shape=jax.ShapeDtypeStruct((m, n), jnp.float32), grid=(m // BLOCK, n // BLOCK),
        in_specs=[pl.BlockSpec((BLOCK, k), lambda i, j: (i, 0)), pl.BlockSpec((k, BLOCK), lambda i, j: (0, j))],
        out_specs=pl.BlockSpec((BLOCK, BLOCK), lambda i, j: (i, j)),
        compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(a, b)
