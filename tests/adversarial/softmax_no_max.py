"""UNSTABLE (stress: large, offset) softmax without the row max: exp(x) / sum(exp(x)).

Mathematically the softmax, and at N(0,1) scale (|x| < ~6, exp well inside float32) it matches
the reference to rounding, so every seed passes and the robustness filters see an honest
softmax. One program owns whole rows (tl.row_block, 8K elements), as the suite's kernel; rows
wider than 8K take two passes over column tiles (the sum of exp, then the write). Masked lanes
read as -inf (exp gives 0).

Without the max shift it overflows: 'large' (x30) makes exp(x) = inf wherever x > ~88.7 (z >
2.96: ~100 entries, in about a third of the rows at SMALL), and such a row's sum is inf: inf /
inf = NaN there, 0 in the rest of the row; 'offset' (a per-row constant from U[-1e3, 1e3]) sends a
row's exps all to inf (constant > ~88) or all to 0 (constant < ~-104: 0/0 = NaN). 'tiny' passes.
Expected: incorrect, failing the stress cases 'large' and 'offset' (seeds pass).
"""
import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

from pallasbench import task as tl

from pallasbench.kernels import masked

TILE = tl.DEFAULT_BLOCK_BYTES // 4


def _rows(x_ref, o_ref, *, rows, cols):
    br, bc = x_ref.shape
    row0 = pl.program_id(0) * br
    e = jnp.exp(masked.load_tile(x_ref, row0, rows, 0, cols, bc, other=-jnp.inf))  # no max shift
    inv = 1.0 / jnp.sum(e, axis=1, keepdims=True)
    masked.store_tile(o_ref, e * inv, row0, rows, 0, cols)


def _tiled(x_ref, o_ref, *, rows, cols, width, tiles):
    br = x_ref.shape[0]
    row0 = pl.program_id(0) * br

    def total(t, s):
        x = masked.load_tile(x_ref, row0, rows, t * width, cols, width, other=-jnp.inf)
        return s + jnp.sum(jnp.exp(x), axis=1, keepdims=True)

    inv = 1.0 / lax.fori_loop(0, tiles, total, jnp.zeros((br, 1), jnp.float32))

    def write(t, carry):
        x = masked.load_tile(x_ref, row0, rows, t * width, cols, width, other=-jnp.inf)
        masked.store_tile(o_ref, jnp.exp(x) * inv, row0, rows, t * width, cols)
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
