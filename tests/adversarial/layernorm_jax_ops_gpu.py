"""HONEST (another's kernel) JAX's own Pallas layernorm, jax.experimental.pallas.ops.gpu.layer_norm,
through its public API with unit weight and zero bias (the task's layernorm has no affine). Its
API takes (batch, rows, features): one pallas_call per row, vmapped twice.

Its f32 mean and variance on the 'offset' case err like XLA's own float32 layernorm (max abs
error ~1e-4 against the fixed 1e-5 bound): within 4x XLA's own error on that input
(docs/measurement.md, "Accuracy against the platform"). Expected: ok, robust.
"""
import jax.numpy as jnp
from jax.experimental.pallas.ops.gpu import layer_norm as pallas_layer_norm


def kernel(x):
    cols = x.shape[-1]
    ones, zeros = jnp.ones((cols,), x.dtype), jnp.zeros((cols,), x.dtype)
    return pallas_layer_norm.layer_norm(x[None], ones, zeros, eps=1e-5)[0]
