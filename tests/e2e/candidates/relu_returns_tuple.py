import jax.numpy as jnp


def kernel(x):
    return jnp.maximum(x, 0.0), x
