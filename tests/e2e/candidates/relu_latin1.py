# -*- coding: latin-1 -*-
"""A latin-1 source (PEP 263): café. Python reads it; so must the harness."""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

NAME = "rélu"


def _body(x_ref, o_ref):
    o_ref[...] = jnp.maximum(x_ref[...], 0.0)


def kernel(x):
    rows, cols = x.shape
    spec = pl.BlockSpec((8, cols), lambda i: (i, 0))
    return pl.pallas_call(_body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(rows // 8,),
                          in_specs=[spec], out_specs=spec,
                          compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(x)
