"""HONEST (another's kernel) JAX's own Pallas softmax, jax.experimental.pallas.ops.gpu.softmax,
called through its public API (one pallas_call, vmapped over rows, interpret=False as shipped).

Expected: ok, robust.
"""
from jax.experimental.pallas.ops.gpu import softmax as pallas_softmax


def kernel(x):
    return pallas_softmax.softmax(x, axis=-1)
