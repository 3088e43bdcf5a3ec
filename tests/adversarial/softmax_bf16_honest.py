"""HONEST (bfloat16 tier) a row softmax for `--dtype bfloat16`: whole rows per program, the max,
exp and sum in float32, one rounding to bf16 on the store.

Expected at bfloat16: ok, every filter passes.
"""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton


def _softmax(x_ref, o_ref):
    x = x_ref[...].astype(jnp.float32)
    e = jnp.exp(x - jnp.max(x, axis=1, keepdims=True))
    o_ref[...] = (e / jnp.sum(e, axis=1, keepdims=True)).astype(o_ref.dtype)


def kernel(x):
    rows, cols = x.shape
    br = max(1, min(rows, 4096 // cols))
    spec = pl.BlockSpec((br, cols), lambda i: (i, 0))
    return pl.pallas_call(_softmax, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(rows // br,),
                          in_specs=[spec], out_specs=spec,
                          compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(x)
