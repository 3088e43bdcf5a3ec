"""HONEST layernorm_residual: layernorm(x) + r over the last axis, two inputs, one kernel.

Each program holds whole rows of x and r (8K elements of each): mean, variance of the centred
row (two-pass, as the reference), normalise, add the residual. Expected: correct and robust.
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
    mean = jnp.sum(x, axis=1, keepdims=True) / cols
    d = x - mean
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
