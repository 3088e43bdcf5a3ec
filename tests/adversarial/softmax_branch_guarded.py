"""DEGENERATE (branch-guarded kernel) a lax.cond picks a Pallas softmax only when x holds a NaN
(never, for valid inputs) and XLA's softmax otherwise: the module holds a real Pallas kernel
that never runs.

The analysis counts the work of every branch and follows the data: XLA's branch is the softmax,
outside any kernel, and a cond result depends on a kernel only when every branch's does.
Expected: ok, source_analysis fails.
"""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton


def _softmax(x_ref, o_ref):
    x = x_ref[...]
    e = jnp.exp(x - jnp.max(x, axis=-1, keepdims=True))
    o_ref[...] = e / jnp.sum(e, axis=-1, keepdims=True)


def _pallas_softmax(x):
    rows, cols = x.shape
    br = max(1, min(rows, 8192 // cols))
    spec = pl.BlockSpec((br, cols), lambda i: (i, 0))
    return pl.pallas_call(_softmax, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          grid=(rows // br,), in_specs=[spec], out_specs=spec,
                          compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(x)


def kernel(x):
    return jax.lax.cond(jnp.isnan(x).any(), _pallas_softmax, lambda y: jax.nn.softmax(y, axis=-1), x)
