"""HONEST reduce_sum in two pallas_calls: partial sums over column chunks, then a second pass.

Pass 1: program (i, j) sums rows i*br.. over the column chunk j (64 wide) and writes the
partials of its rows into heads[j, rows] and tails[j, rows]. Pass 2: each program adds the
chunk partials of its rows. Nothing but the two kernels runs: the harness must accept a chain
of pallas_calls.

The correctness reference is float64, and a plain f32 sum of thousands of N(0, 1) terms errs
by ~1e-5, the size of the tolerance. So each value is split exactly into a head on a 2^-10
grid (sums of heads are exact while |partial| < 2^14) and a tail below 2^-10 (its rounding is
negligible); heads and tails are summed apart and added once at the end.
Expected: correct and robust.
"""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

CHUNK = 64  # columns a program of pass 1 sums
BLOCK_ROWS = 64  # (64, 64) tile: 4K elements, 32 per thread at 4 warps
GRID = 1024.0  # heads on a 2^-10 grid
HEAD_RANGE = 4096.0


def _split(x):
    """x = head + tail exactly. The grid rounding is an int32 round trip ((x + c) - c would be
    folded back to x by XLA's CPU compiler in interpret mode)."""
    scaled = jnp.clip(x, -HEAD_RANGE, HEAD_RANGE) * GRID  # power of two: exact
    head = scaled.astype(jnp.int32).astype(jnp.float32) * (1.0 / GRID)
    return head, x - head


def _partial_body(x_ref, h_ref, t_ref):
    head, tail = _split(x_ref[...])
    h_ref[...] = jnp.sum(head, axis=1)
    t_ref[...] = jnp.sum(tail, axis=1)


def _final_body(h_ref, t_ref, o_ref):
    o_ref[...] = jnp.sum(h_ref[...], axis=0) + jnp.sum(t_ref[...], axis=0)


def kernel(x):
    rows, cols = x.shape
    br, bc = min(BLOCK_ROWS, rows), min(CHUNK, cols)
    if rows % br or cols % bc:
        raise ValueError(f"block ({br}, {bc}) does not divide {x.shape}")
    chunks = cols // bc
    if chunks & (chunks - 1):
        raise ValueError(f"{chunks} column chunks: pass 2 needs a power of two")
    params = pltriton.CompilerParams(num_warps=4, num_stages=1)
    partial = jax.ShapeDtypeStruct((chunks, rows), x.dtype)
    partial_spec = pl.BlockSpec((None, br), lambda i, j: (j, i))
    heads, tails = pl.pallas_call(
        _partial_body,
        out_shape=(partial, partial),
        grid=(rows // br, chunks),
        in_specs=[pl.BlockSpec((br, bc), lambda i, j: (i, j))],
        out_specs=(partial_spec, partial_spec),
        compiler_params=params,
    )(x)
    final_spec = pl.BlockSpec((chunks, br), lambda i: (0, i))
    return pl.pallas_call(
        _final_body,
        out_shape=jax.ShapeDtypeStruct((rows,), x.dtype),
        grid=(rows // br,),
        in_specs=[final_spec, final_spec],
        out_specs=pl.BlockSpec((br,), lambda i: (i,)),
        compiler_params=params,
    )(heads, tails)
