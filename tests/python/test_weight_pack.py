"""kernels/weight_pack.py: the packing passes give the K-major operands the Mosaic matmul reads,
in interpret mode, and lower for CUDA with Triton's power-of-two blocks."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from pallasbench.kernels import weight_pack
from pallasbench.task import blocks
from pallasbench.worker import interpret, jaxpr_info


def _weights(n_w, k=128, n=64):
    rng = np.random.default_rng(n_w)
    return [jnp.asarray(rng.standard_normal((k, n)), jnp.float32) for _ in range(n_w)]


@pytest.mark.parametrize("n_w", [1, 2, 3])
def test_side_by_side_is_the_concatenation_transposed(n_w):
    ws = _weights(n_w)
    got = np.asarray(jax.jit(lambda *w: weight_pack.pack_side_by_side(list(w)))(*ws))
    assert np.array_equal(got, np.concatenate([np.asarray(w) for w in ws], axis=1).T)


def test_side_by_side_rounds_to_nearest_tf32_when_asked():
    ws = _weights(3)
    got = np.asarray(jax.jit(lambda *w: weight_pack.pack_side_by_side(list(w), rounded=True))(*ws))
    want = np.asarray(weight_pack.round_tf32(jnp.concatenate(ws, axis=1))).T
    assert np.array_equal(got, want)
    assert not np.array_equal(got, np.concatenate([np.asarray(w) for w in ws], axis=1).T)
    assert np.all(got.view(np.int32) & 0x1FFF == 0)  # 13 low mantissa bits clear


def test_pack_weights_interleaves_per_column_block():
    ws = _weights(2, n=128)
    got = np.asarray(jax.jit(lambda a, b: weight_pack.pack_weights([a, b], 64))(*ws))
    a, b = (np.asarray(w) for w in ws)
    want = np.concatenate([a[:, :64].T, b[:, :64].T, a[:, 64:].T, b[:, 64:].T])
    assert np.array_equal(got, want)


def test_side_by_side_of_three_lowers_with_power_of_two_blocks():
    """pack_weights(ws, N) with three weights would need a block dimension of 3."""
    avals = [jax.ShapeDtypeStruct((1024, 256), jnp.float32)] * 3
    fn = lambda *w: weight_pack.pack_side_by_side(list(w), rounded=True)  # noqa: E731
    with interpret.suspended():
        for call in jaxpr_info.pallas_calls(jax.make_jaxpr(fn)(*avals)):
            for block in call["block_shapes"]:
                blocks.check_block("pack_side_by_side", block)
        text = jax.jit(fn).trace(*avals).lower(lowering_platforms=("cuda",)).as_text()
    assert text.count("__gpu$xla.gpu.triton") == 1
