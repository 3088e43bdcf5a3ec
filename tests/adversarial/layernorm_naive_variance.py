"""UNSTABLE (stress: offset) layernorm with the one-pass "textbook" variance
var = E[x^2] - E[x]^2 (a sum and a sum of squares in the same pass), out = (x - mean) *
rsqrt(var + 1e-5), no affine.

One program owns whole rows (tl.row_block, 8K elements), as the suite's kernel; rows wider than
8K accumulate the two sums over column tiles, then write. At N(0,1) scale E[x^2] ~ 1 and E[x]^2
~ 1/cols, so the subtraction loses nothing that matters: seeds pass and the robustness filters
see an honest layernorm. 'tiny' (x1e-3: var ~ 1e-6, dominated by eps) and 'large' (x30: var ~
900, mean^2 ~ 900/cols, a relative cancellation error ~1e-7) pass too.

'offset' (a per-row constant c from U[-1e3, 1e3]) puts E[x^2] ~ c^2 ~ 1e5..1e6 against a
variance of ~1: the f32 rounding of the two sums (~1e-1 absolute) swamps it (catastrophic
cancellation; var may even come out negative, giving NaN), and the plain f32 row sum also
leaves the mean off by ~1e-4. Expected: incorrect, failing only the stress case 'offset'.
"""
import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

from pallasbench import task as tl

from pallasbench.kernels import masked

EPS = 1e-5
TILE = tl.DEFAULT_BLOCK_BYTES // 4


def _rows(x_ref, o_ref, *, rows, cols):
    br, bc = x_ref.shape
    row0 = pl.program_id(0) * br
    x = masked.load_tile(x_ref, row0, rows, 0, cols, bc, other=0.0)  # padding lanes add 0 to both sums
    mean = jnp.sum(x, axis=1, keepdims=True) / cols
    var = jnp.sum(x * x, axis=1, keepdims=True) / cols - mean * mean
    masked.store_tile(o_ref, (x - mean) * lax.rsqrt(var + EPS), row0, rows, 0, cols)


def _tiled(x_ref, o_ref, *, rows, cols, width, tiles):
    br = x_ref.shape[0]
    row0 = pl.program_id(0) * br

    def sums(t, carry):
        s1, s2 = carry
        x = masked.load_tile(x_ref, row0, rows, t * width, cols, width, other=0.0)
        return (s1 + jnp.sum(x, axis=1, keepdims=True),
                s2 + jnp.sum(x * x, axis=1, keepdims=True))

    zeros = jnp.zeros((br, 1), jnp.float32)
    s1, s2 = lax.fori_loop(0, tiles, sums, (zeros, zeros))
    mean = s1 / cols
    rstd = lax.rsqrt(s2 / cols - mean * mean + EPS)

    def write(t, carry):
        x = masked.load_tile(x_ref, row0, rows, t * width, cols, width, other=0.0)
        masked.store_tile(o_ref, (x - mean) * rstd, row0, rows, t * width, cols)
        return carry

    lax.fori_loop(0, tiles, write, 0)


def kernel(x):
    rows, cols = x.shape
    br, bc = tl.row_block(rows, cols, x.dtype.itemsize)
    width = min(bc, TILE)
    if width == bc:
        body = functools.partial(_rows, rows=rows, cols=cols)
    else:
        body = functools.partial(_tiled, rows=rows, cols=cols, width=width,
                                 tiles=tl.cdiv(cols, width))
    spec = pl.BlockSpec((br, bc), lambda i: (i, 0))
    return pl.pallas_call(
        body,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(tl.cdiv(rows, br),),
        in_specs=[spec],
        out_specs=spec,
        compiler_params=pltriton.CompilerParams(num_warps=8 if br * width >= TILE else 4,
                                                num_stages=1),
    )(x)
