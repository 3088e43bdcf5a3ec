"""kernels/elementwise.py: the block budget map_blocks takes by default (32 KB blocks; 128 KB
for streaming bodies over arrays of 256 MiB and more) and that a task's tuning value overrides it."""

import jax
import jax.numpy as jnp

from pallasbench.kernels import elementwise
from pallasbench.task import registry, tuning
from pallasbench.worker import interpret, jaxpr_info


def _blocks(task_name, shape, dtype=jnp.float32):
    module = registry.load(task_name)
    avals = [jax.ShapeDtypeStruct(shape, dtype) for _ in module.INPUTS]
    with interpret.suspended():
        (call,) = jaxpr_info.pallas_calls(jax.make_jaxpr(lambda *xs: module.kernel(*xs))(*avals))
    return call["block_shapes"][0], call["grid"]


def test_streaming_blocks_from_256_mib():
    big = jax.ShapeDtypeStruct((8192, 8192), jnp.float32)
    assert elementwise.block_bytes(big, stream=True) == 128 * 1024
    assert elementwise.block_bytes(big) == 32 * 1024  # a longer body keeps its occupancy
    assert elementwise.block_bytes(jax.ShapeDtypeStruct((8192, 8191), jnp.float32), stream=True) == 32 * 1024
    assert elementwise.block_bytes(jax.ShapeDtypeStruct((16384, 16384), jnp.bfloat16), stream=True) == 128 * 1024


def test_large_relu_runs_128_kb_blocks_medium_32_kb():
    assert _blocks("relu", (16384, 16384)) == ([2, 16384], [8192, 1])  # LARGE: 32K floats, whole rows
    assert _blocks("relu", (4096, 4096)) == ([2, 4096], [2048, 1])  # MEDIUM: 8K floats


def test_transcendental_bodies_keep_32_kb_blocks_at_large():
    assert _blocks("gelu", (16384, 16384)) == ([1, 8192], [16384, 2])


def test_a_tuning_value_overrides_the_budget():
    with tuning.variant("relu", block_bytes=32 * 1024):
        assert _blocks("relu", (16384, 16384)) == ([1, 8192], [16384, 2])
