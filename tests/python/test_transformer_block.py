"""tasks/level3/transformer_block.py's "qkv_views": the attention reading q, k and v as column
blocks of the projection's [q | k | v] gives what it gives on the three slices. The Mosaic
projections run on Hopper only, so here (interpret mode) they are stood in for by functions of
the same contract; a wrong column block (k read where q is) changes the output."""

import jax.numpy as jnp
import numpy as np
import pytest

from pallasbench.task import registry, tuning

TASK = registry.load("transformer_block")
SHAPES = {"x": (64, 64), "wq": (64, 16), "wk": (64, 16), "wv": (64, 16), "wo": (16, 64), "wff": (64, 64)}


@pytest.fixture
def stand_in_projections(monkeypatch):
    def qkv(x, wq, wk, wv, q_scale):  # the contracts of _mosaic_qkv and _mosaic_ffn, in jnp
        xn = TASK._rmsnorm(x)
        return jnp.concatenate([xn @ wq * q_scale, xn @ wk, xn @ wv], axis=1)

    def ffn(h, wff, dtype):
        return (h + jnp.maximum(TASK._rmsnorm(h) @ wff, 0)).astype(dtype)

    monkeypatch.setattr(TASK, "_mosaic_qkv", qkv)
    monkeypatch.setattr(TASK, "_mosaic_ffn", ffn)


def test_views_read_the_columns_the_slices_hold(stand_in_projections):
    inputs = TASK.make_inputs(np.random.default_rng(2), SHAPES)
    runs = {}
    for views in (False, True):
        with tuning.variant("transformer_block", proj_backend="mosaic", qkv_views=views):
            runs[views] = np.asarray(TASK.kernel(*inputs))
    assert np.array_equal(runs[True], runs[False])
    with tuning.variant("transformer_block", proj_backend="triton"):
        triton = np.asarray(TASK.kernel(*inputs))
    assert not np.array_equal(runs[True], triton)  # the stand-ins ran, not the Triton kernels
    np.testing.assert_allclose(runs[True], triton, rtol=2e-2, atol=2e-2)
