"""HONEST hamming_distance: int32 (N, M) mismatch counts between uint8 DNA rows, in Pallas.

Program (i, j) owns a (16, 16) output tile: it loads 16 rows of a and 16 rows of b, widens
them to int32 inside the kernel, compares every pair position by position and sums the
mismatches along the sequence. An integer task with an exact tolerance; the DNA inputs are
perturbed by resampling bases. Expected: correct and robust.
"""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

TILE = 16  # (16, 16, L) compare block: 8K elements at L = 32, 64K at L = 256


def _body(a_ref, b_ref, o_ref):
    a = a_ref[...].astype(jnp.int32)  # (TILE, L)
    b = b_ref[...].astype(jnp.int32)  # (TILE, L)
    o_ref[...] = jnp.sum((a[:, None, :] != b[None, :, :]).astype(jnp.int32), axis=2)


def kernel(a, b):
    (n, length), m = a.shape, b.shape[0]
    tn, tm = min(TILE, n), min(TILE, m)
    if n % tn or m % tm or length & (length - 1):
        raise ValueError(f"tiles ({tn}, {tm}) and length {length} do not fit {a.shape}, {b.shape}")
    return pl.pallas_call(
        _body,
        out_shape=jax.ShapeDtypeStruct((n, m), jnp.int32),
        grid=(n // tn, m // tm),
        in_specs=[pl.BlockSpec((tn, length), lambda i, j: (i, 0)),
                  pl.BlockSpec((tm, length), lambda i, j: (j, 0))],
        out_specs=pl.BlockSpec((tn, tm), lambda i, j: (i, j)),
        compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1),
    )(a, b)
