"""DEGENERATE (c) softmax half done: Pallas softmaxes the first half of the rows, XLA the rest.

The Pallas half is a real row softmax; the other half is jax.nn.softmax outside, and the two
are concatenated. Correct (allclose passes); only source_analysis can catch it: exp and
reductions outside any pallas_call, about half of the task's FLOPs inside.
"""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton


def _softmax_rows(x_ref, o_ref):
    x = x_ref[...]
    e = jnp.exp(x - jnp.max(x, axis=1, keepdims=True))
    o_ref[...] = e / jnp.sum(e, axis=1, keepdims=True)


def kernel(x):
    rows, cols = x.shape
    half = rows // 2
    br = max(1, min(half, 8192 // cols))
    spec = pl.BlockSpec((br, cols), lambda i: (i, 0))
    top = pl.pallas_call(_softmax_rows, out_shape=jax.ShapeDtypeStruct((half, cols), x.dtype),
                         grid=(half // br,), in_specs=[spec], out_specs=spec,
                         compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(x[:half])
    bottom = jax.nn.softmax(x[half:], axis=-1)
    return jnp.concatenate([top, bottom], axis=0)
