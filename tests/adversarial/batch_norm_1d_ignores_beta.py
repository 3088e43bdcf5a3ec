"""DEGENERATE (h) ignoring an input on batch_norm_1d: gamma * (x - mean0) / sqrt(var0 + eps),
the shift beta never read.

beta ~ N(0, 1) shifts whole columns by O(1), so correctness already says `incorrect`; the
filter meant for it is input_impact (perturbing beta moves the reference, not this output).
The kernel itself is real: each program holds whole columns (all rows) and computes the
column statistics in registers.
"""
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

EPS = 1e-5


def _body(x_ref, g_ref, o_ref):
    x = x_ref[...]
    rows = x.shape[0]
    mean = jnp.sum(x, axis=0, keepdims=True) / rows
    d = x - mean
    var = jnp.sum(d * d, axis=0, keepdims=True) / rows
    o_ref[...] = g_ref[...][None, :] * d * lax.rsqrt(var + EPS)


def kernel(x, gamma, beta):
    del beta  # ignored
    rows, cols = x.shape
    bc = max(1, min(cols, 8192 // rows))
    return pl.pallas_call(
        _body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(cols // bc,),
        in_specs=[pl.BlockSpec((rows, bc), lambda j: (0, j)), pl.BlockSpec((bc,), lambda j: (j,))],
        out_specs=pl.BlockSpec((rows, bc), lambda j: (0, j)),
        compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(x, gamma)
