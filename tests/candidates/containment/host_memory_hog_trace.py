"""Hostile (containment): imports quietly, then grows a list of 256 MiB blocks (each written)
while `kernel` is traced, until the allocation fails or 64 GiB are held. Its tracer's memory limit
stops it: its own failure, a reason naming the limit."""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

BLOCK = 256 << 20


def _body(x_ref, o_ref):
    o_ref[...] = jnp.maximum(x_ref[...], 0.0)


def kernel(x):
    held = [bytearray(b"\1") * BLOCK for _ in range(256)]  # bytearray * n writes every byte
    return pl.pallas_call(_body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x) + len(held) * 0.0
