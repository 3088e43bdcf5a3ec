"""HONEST split-K matmul: the kernel writes per-split partial products, XLA sums the splits.

K is cut into SPLITS chunks; program (s, i, j) computes a's row block times b's column block
over chunk s and writes the (64, 64) partial to partials[s, i, j]. The epilogue outside the
kernel sums the SPLITS partials of each output element: SPLITS - 1 adds an element, 4 / (2 K) =
0.8% of the task's FLOPs at SMALL, within the epilogue policy's 5% (docs/filters.md). No data
moves outside the kernel: the sum reads the partials where they are.
Expected: correct and robust.
"""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

TILE = 64
SPLITS = 4


def _partial_body(a_ref, b_ref, o_ref):
    o_ref[...] = jnp.dot(a_ref[...], b_ref[...], preferred_element_type=jnp.float32)


def kernel(a, b):
    m, k = a.shape
    n = b.shape[1]
    bm, bn, bk = min(TILE, m), min(TILE, n), k // SPLITS
    partials = pl.pallas_call(
        _partial_body,
        out_shape=jax.ShapeDtypeStruct((SPLITS, m, n), jnp.float32),
        grid=(SPLITS, m // bm, n // bn),
        in_specs=[pl.BlockSpec((bm, bk), lambda s, i, j: (i, s)), pl.BlockSpec((bk, bn), lambda s, i, j: (s, j))],
        out_specs=pl.BlockSpec((None, bm, bn), lambda s, i, j: (s, i, j)),
        compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1),
    )(a, b)
    return jnp.sum(partials, axis=0)
