"""HONEST (stress: offset) a Welford layernorm: each row's mean and sum of squared deviations are
built chunk by chunk (32 columns at a time) with Chan's update, mean += d * k / n and
M2 += M2_chunk + d^2 * n_old * k / n (d the chunk mean's distance from the running mean), then
(x - mean) * rsqrt(M2 / n + 1e-5), in f32, one program owning 64 whole rows.

Stable on the 'offset' case like a two-pass kernel (no E[x^2] - E[x]^2 cancellation); its mean
errs like any f32 sum of offset values, within 4x XLA's own error on that input. Expected: ok,
robust.
"""
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

EPS = 1e-5
ROWS = 64
CHUNK = 32
MAX_COLS = 8192


def _rows(x_ref, o_ref):
    cols = x_ref.shape[1]
    mean = jnp.zeros((ROWS, 1), jnp.float32)
    m2 = jnp.zeros((ROWS, 1), jnp.float32)
    for c in range(cols // CHUNK):
        chunk = x_ref[:, c * CHUNK:(c + 1) * CHUNK]
        chunk_mean = jnp.sum(chunk, axis=1, keepdims=True) / CHUNK
        chunk_m2 = jnp.sum((chunk - chunk_mean) ** 2, axis=1, keepdims=True)
        seen, total = c * CHUNK, (c + 1) * CHUNK
        d = chunk_mean - mean
        mean = mean + d * (CHUNK / total)
        m2 = m2 + chunk_m2 + d * d * (seen * CHUNK / total)
    o_ref[...] = (x_ref[...] - mean) * lax.rsqrt(m2 / cols + EPS)


def kernel(x):
    rows, cols = x.shape
    if cols > MAX_COLS or rows % ROWS or cols % CHUNK or cols & (cols - 1):
        raise ValueError(f"layernorm_welford: x {x.shape} needs rows a multiple of {ROWS} and a power-of-two "
                         f"width from {CHUNK} up to {MAX_COLS}")
    return pl.pallas_call(
        _rows, out_shape=jax.ShapeDtypeStruct(x.shape, jnp.float32), grid=(rows // ROWS,),
        in_specs=[pl.BlockSpec((ROWS, cols), lambda i: (i, 0))], out_specs=pl.BlockSpec((ROWS, cols), lambda i: (i, 0)),
        compiler_params=pltriton.CompilerParams(num_warps=8, num_stages=1))(x)
