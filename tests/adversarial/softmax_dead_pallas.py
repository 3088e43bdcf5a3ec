"""DEGENERATE (dead kernel) XLA computes the softmax; a Pallas kernel runs on the input but its
result is thrown away (kept alive only by an optimization barrier with the answer), so a check
that asks "is there a pallas_call?" sees one.

The module analysis follows the data: no Pallas kernel result reaches the output, and the whole
softmax is XLA work. Expected: ok (XLA's softmax is correct), source_analysis fails.
"""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton


def _relu(x_ref, o_ref):
    o_ref[...] = jnp.maximum(x_ref[...], 0.0)


def _token(x):
    rows, cols = x.shape
    br = max(1, min(rows, 8192 // cols))
    spec = pl.BlockSpec((br, cols), lambda i: (i, 0))
    return pl.pallas_call(_relu, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          grid=(rows // br,), in_specs=[spec], out_specs=spec,
                          compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(x)


def kernel(x):
    answer, _unused = jax.lax.optimization_barrier((jax.nn.softmax(x, axis=-1), _token(x)))
    return answer
