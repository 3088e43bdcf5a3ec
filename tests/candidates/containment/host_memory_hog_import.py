"""Hostile (containment): allocates and touches 6 GiB of host memory when imported, then would
be an honest relu. Its tracer's memory limit (--tracer-memory, smaller than that in the tests)
stops it: its own failure, a reason naming the limit, nothing of the harness's touched."""
import numpy as np
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

HOG = np.ones(6 << 30, dtype=np.uint8)  # every page written: resident, not just mapped


def _body(x_ref, o_ref):
    o_ref[...] = jnp.maximum(x_ref[...], 0.0)


def kernel(x):
    return pl.pallas_call(_body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
