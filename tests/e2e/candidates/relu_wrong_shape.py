"""relu candidate that is wrong: wrong shape."""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton


def _body(x_ref, o_ref):
    o_ref[...] = jnp.maximum(x_ref[...], 0.0)


def kernel(x):
    rows, cols = x.shape
    spec = pl.BlockSpec((8, cols), lambda i: (i, 0))
    return pl.pallas_call(_body, out_shape=jax.ShapeDtypeStruct((rows, cols // 2), x.dtype), grid=(rows // 8,),
                          in_specs=[pl.BlockSpec((8, cols // 2), lambda i: (i, 0))], out_specs=pl.BlockSpec((8, cols // 2), lambda i: (i, 0)),
                          compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(x)
