"""Hostile (containment): writes its private /dev/shm (a tmpfs: memory) in 16 MiB chunks until the
file system refuses, at import. The tmpfs's size (--tracer-tmpfs) stops it with ENOSPC: its own
failure, a reason naming the cap."""
import os

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

CHUNK = b"\1" * (16 << 20)
for index in range(4096):  # 64 GiB at most, in files under 1 GiB (RLIMIT_FSIZE)
    with open(os.path.join("/dev/shm", f"fill-{index}"), "wb") as sink:
        for _ in range(32):
            sink.write(CHUNK)
            sink.flush()


def _body(x_ref, o_ref):
    o_ref[...] = jnp.maximum(x_ref[...], 0.0)


def kernel(x):
    return pl.pallas_call(_body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
