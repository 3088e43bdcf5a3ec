"""tasks/level3/triangle_update.py's "split" "pass" path (interpret mode): the split pass's head
and tail, and the three-dot contraction on them at float32 accuracy (a dropped cross term would
leave a 2^-11 relative error); the refusal outside float32 / three passes / channel-major."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from pallasbench.task import registry, tuning

TASK = registry.load("triangle_update")
PRESPLIT = {"split": "pass", "tile": 32, "tile_k": 16}


def _inputs(shape=(64, 64, 4), seed=5):
    return TASK.make_inputs(np.random.default_rng(seed), {"pair": shape, "mask": shape[:2]})


def test_split_pass_gives_a_tf32_exact_head_and_the_exact_tail():
    pair, mask = _inputs()
    pair_t = jnp.transpose(jnp.asarray(pair), (2, 0, 1))
    hi, lo = (np.asarray(a) for a in TASK._split_pass(pair_t, jnp.asarray(mask), 32))
    masked = np.asarray(pair_t) * mask[None]
    assert np.array_equal(hi + lo, masked)
    assert np.all(hi.view(np.int32) & 0x1FFF == 0)  # 13 low mantissa bits clear: TF32-exact
    assert np.abs(lo).max() <= 2.0**-11 * np.abs(masked).max()


def test_presplit_contraction_at_float32_accuracy():
    pair, mask = _inputs()
    with tuning.variant("triangle_update", **PRESPLIT):
        out = np.asarray(jax.jit(TASK.kernel)(pair, mask), np.float64)
    m = pair.astype(np.float64) * mask[:, :, None]
    want = pair + np.einsum("ikc,kjc->ijc", m, m)
    assert np.linalg.norm(out - want) / np.linalg.norm(want) < 1e-6


@pytest.mark.parametrize("values, dtype", [({"layout": "strided"}, jnp.float32), ({"passes": 1}, jnp.float32),
                                           ({}, jnp.bfloat16)])
def test_presplit_refuses_what_it_does_not_compute(values, dtype):
    pair, mask = _inputs((32, 32, 2))
    with tuning.variant("triangle_update", **PRESPLIT, **values), pytest.raises(ValueError, match="split 'pass'"):
        TASK.kernel(jnp.asarray(pair, dtype), jnp.asarray(mask, dtype))
