"""HONEST layernorm_residual: layernorm(x) + r over the last axis, two inputs, one kernel.

Each program holds whole rows of x and r (8K elements of each): mean, variance of the centred
row (two-pass, as the reference), normalise, add the residual. The sums run over x minus the
row's first element (exact), so a row offset of 1e3 (the offset stress case) costs no accuracy.
Expected: correct and robust, every stress case passed.
"""
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

EPS = 1e-5
BLOCK_ELEMS = 8192


def _body(x_ref, r_ref, o_ref):
    x = x_ref[...]
    cols = x.shape[1]
    s = x - x_ref[:, :1]  # a ref slice: Triton lowers no value slices
    mean = jnp.sum(s, axis=1, keepdims=True) / cols
    d = s - mean
    var = jnp.sum(d * d, axis=1, keepdims=True) / cols
    o_ref[...] = d * lax.rsqrt(var + EPS) + r_ref[...]


def kernel(x, r):
    rows, cols = x.shape
    if cols & (cols - 1):
        raise ValueError(f"rows of {cols} elements: this kernel needs a power-of-two row")
    br = max(1, min(rows, BLOCK_ELEMS // cols))
    if rows % br:
        raise ValueError(f"{br} rows a block does not divide {rows}")
    spec = pl.BlockSpec((br, cols), lambda i: (i, 0))
    return pl.pallas_call(
        _body,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(rows // br,),
        in_specs=[spec, spec],
        out_specs=spec,
        compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1),
    )(x, r)
