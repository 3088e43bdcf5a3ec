"""HONEST matmul whose weight is packed outside the kernel.

b, the task's weight input, is laid out K-major outside the kernel (b.T, (N, K): what a Hopper
TF32 kernel wants, and what a deployment does once, offline); the pallas_call computes each
(64, 64) output tile from a's row block and the packed b's row block, contracting over K. The
transpose moves all of b outside the kernels, but data derived from weights alone is packing
(docs/filters.md, "Data movement"), and at any rate a matmul's volume is its FLOPs.
Expected: correct and robust.
"""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

TILE = 64


def _body(a_ref, bt_ref, o_ref):
    o_ref[...] = jax.lax.dot_general(a_ref[...], bt_ref[...], (((1,), (1,)), ((), ())),
                                     preferred_element_type=jnp.float32)


def kernel(a, b):
    m, k = a.shape
    n = b.shape[1]
    packed = b.T  # (N, K): the weight, K-major
    bm, bn = min(TILE, m), min(TILE, n)
    return pl.pallas_call(
        _body,
        out_shape=jax.ShapeDtypeStruct((m, n), jnp.float32),
        grid=(m // bm, n // bn),
        in_specs=[pl.BlockSpec((bm, k), lambda i, j: (i, 0)), pl.BlockSpec((bn, k), lambda i, j: (j, 0))],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j: (i, j)),
        compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1),
    )(a, packed)
