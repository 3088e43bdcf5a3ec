"""softmax over rows as the Pallas docs write it: a plain pl.pallas_call (no compiler_params),
blocks of 16 whole rows (a power-of-two number of columns). The GPU machine's jax lowers it with
Triton."""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def softmax_kernel(x_ref, o_ref):
    x = x_ref[...]
    e = jnp.exp(x - jnp.max(x, axis=1, keepdims=True))
    o_ref[...] = e / jnp.sum(e, axis=1, keepdims=True)


def kernel(x):
    rows, cols = x.shape
    br = 16
    return pl.pallas_call(
        softmax_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(rows // br,),
        in_specs=[pl.BlockSpec((br, cols), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((br, cols), lambda i: (i, 0)),
    )(x)
