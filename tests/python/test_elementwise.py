"""kernels/elementwise.py: the block budget map_blocks takes by default (32 KB blocks; 128 KB
for streaming bodies over arrays of 256 MiB and more) and that a task's tuning value overrides it;
map_float32 and map_exact, the bodies the elementwise family's kernels are written with."""

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


def test_map_float32_computes_in_float32_and_rounds_once_on_store():
    """(x + 1) - 1 of small bfloat16 values: exact in float32, where bfloat16 arithmetic would lose
    every bit below 2^-8."""
    x = (jnp.arange(16 * 256, dtype=jnp.float32).reshape(16, 256) * 1e-5).astype(jnp.bfloat16)
    out = elementwise.map_float32(lambda v: (v + 1.0) - 1.0, x, name="test_map_float32")
    assert out.dtype == jnp.bfloat16
    assert (out == x).all()
    assert not ((x + 1.0) - 1.0 == x).all()  # the same formula in bfloat16 rounds


def test_map_exact_runs_in_the_input_dtype():
    x = jnp.linspace(-2.0, 2.0, 16 * 256, dtype=jnp.float32).reshape(16, 256).astype(jnp.float16)
    y = jnp.flip(x, axis=1)
    out = elementwise.map_exact(jnp.maximum, x, y, name="test_map_exact")
    assert out.dtype == jnp.float16
    assert (out == jnp.maximum(x, y)).all()
