"""Hostile (containment, GPU): relu, then its output tiled 1536 times and scaled (96 GiB of
temporaries at MEDIUM, 1.5 GiB at SMALL), kept whole by an optimization barrier so XLA cannot
fuse it away. It runs out of its lane's share of the GPU (--device-share) and is its own failure
after the retry alone; no other lane's evaluation may see it. GPU only: on the CPU, XLA hands the
scaling to YNNPACK, which allocates the temporaries itself (XLA's memory analysis counts none) and
fails with "YNNPACK operation failed": a runtime_error of its own, naming no limit."""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

COPIES = 1536


def _body(x_ref, o_ref):
    o_ref[...] = jnp.maximum(x_ref[...], 0.0)


def kernel(x):
    y = pl.pallas_call(_body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
    copies = jax.lax.optimization_barrier(jnp.tile(y, (COPIES, 1)) * 1.0001)
    return y + 0.0 * copies.reshape(COPIES, *y.shape).sum(axis=0)
