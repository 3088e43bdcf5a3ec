"""HONEST (stress: offset) the textbook two-pass layernorm: mean = sum(x) / n, then the variance of
the centred row, sum((x - mean)^2) / n, then (x - mean) * rsqrt(var + 1e-5), in f32, one program
owning whole rows (64 rows at a time, up to 8K columns).

On the 'offset' case (a per-row constant from U[-1e3, 1e3]) the f32 row sum errs by ~1e-4 in the
mean, past the fixed 1e-5 bound, exactly as XLA's own float32 layernorm does: within 4x XLA's own
error on that input (docs/measurement.md, "Accuracy against the platform"). Expected: ok, robust.
"""
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

EPS = 1e-5
ROWS = 64
MAX_COLS = 8192


def _rows(x_ref, o_ref):
    x = x_ref[...]
    cols = x.shape[1]
    mean = jnp.sum(x, axis=1, keepdims=True) / cols
    centred = x - mean
    var = jnp.sum(centred * centred, axis=1, keepdims=True) / cols
    o_ref[...] = centred * lax.rsqrt(var + EPS)


def kernel(x):
    rows, cols = x.shape
    if cols > MAX_COLS or rows % ROWS or cols & (cols - 1):
        raise ValueError(f"layernorm_two_pass: x {x.shape} needs rows a multiple of {ROWS} and a power-of-two "
                         f"width up to {MAX_COLS}")
    return pl.pallas_call(
        _rows, out_shape=jax.ShapeDtypeStruct(x.shape, jnp.float32), grid=(rows // ROWS,),
        in_specs=[pl.BlockSpec((ROWS, cols), lambda i: (i, 0))], out_specs=pl.BlockSpec((ROWS, cols), lambda i: (i, 0)),
        compiler_params=pltriton.CompilerParams(num_warps=8, num_stages=1))(x)
