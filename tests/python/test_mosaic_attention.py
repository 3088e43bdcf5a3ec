"""The Mosaic GPU attention kernels (kernels/mosaic_attention.py): each task's kernel lowers for
CUDA on this CPU machine at MEDIUM and LARGE (Mosaic GPU's real lowering: wgmma operand
layouts, the TMA ring, shared memory) as one mosaic_gpu_v2 call, and runs at SMALL in the
tracer's CPU interpreter (worker/mosaic_interpret.py: JAX 0.10.2's own interpreter fails on the
transposed k operand) within the task's tolerance of its float64 reference."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from pallasbench.kernels import mosaic_attention, mosaic_qk_softmax
from pallasbench.task import dtypes, registry, stress
from pallasbench.worker import interpret
from task_avals import task_avals
from test_mosaic_interpret import run_interpreted

TASKS = ("flash_attention", "multi_head_attention", "attention_forward", "qk_softmax")


def _mosaic(task):
    return registry.implementations(task)["mosaic_gpu"]


def _lowered_text(task_name, size, dtype):
    task = registry.load(task_name)
    with interpret.suspended():
        fn = jax.jit(lambda *xs: _mosaic(task)(*xs))
        return fn.trace(*task_avals(task, size, dtype)).lower(lowering_platforms=("cuda",)).as_text()


# MEDIUM float32 (one warpgroup, the float32 v split) and MEDIUM and LARGE bfloat16 (the
# warp-specialised kernel, mosaic_attention_ws) of each task: both head dims, the causal kernels
# and qk_softmax's two passes (CI time: ~0.5 s a lowering).
@pytest.mark.parametrize("size, dtype", [("medium", "float32"), ("medium", "bfloat16"), ("large", "bfloat16")])
@pytest.mark.parametrize("task_name", TASKS)
def test_lowers_for_cuda(task_name, size, dtype):
    text = _lowered_text(task_name, size, dtype)
    assert "mosaic_gpu_v2" in text and "__gpu$xla.gpu.triton" not in text
    assert "stablehlo.convert" not in text


def test_the_schedule_follows_the_shape_and_dtype():
    """Two compute warpgroups for 16-bit sequences of 256 keys or more whose query blocks fill
    the SMs (or causal); else one warpgroup (which the CPU interpreter runs), the keys split
    until the grid fills them: never by CPU or GPU."""
    config = mosaic_attention.config_for
    assert config("t", 1024, 128, 2, causal=True, heads=12).compute_wgs == 2
    assert (config("t", 2048, 64, 2, heads=16).compute_wgs, config("t", 2048, 64, 2, heads=16).kv_splits) == (2, 1)
    assert (config("t", 512, 64, 2).compute_wgs, config("t", 512, 64, 2).kv_splits) == (1, 8)  # flash MEDIUM
    assert config("t", 4096, 128, 4, causal=True, heads=64).compute_wgs == 1
    assert config("t", 4096, 128, 4, causal=True, heads=64).kv_splits == 1
    assert (config("t", 128, 32, 4).compute_wgs, config("t", 128, 32, 4).kv_splits) == (1, 2)  # flash SMALL
    assert mosaic_attention.config_for("t", 1024, 128, 2, attention=False).compute_wgs == 1  # qk_softmax


def check_against_reference(task_name, dtype, case=None, seed=1):
    """The task's Mosaic kernel at SMALL, as the tracer's CPU module runs it, against the float64
    reference within the task's tolerance at `dtype` (on a stress case's inputs if `case`)."""
    task = registry.load(task_name)
    rng = np.random.default_rng(seed)
    if case is None:
        xs = [jnp.asarray(dtypes.round_to(a, dtype), dtype) for a in task.make_inputs(rng, task.SHAPES["small"])]
    else:
        xs = [jnp.asarray(dtypes.round_to(a, dtype), dtype)
              for a in stress.make_inputs(task, case, rng, task.SHAPES["small"])]
    out = run_interpreted(_mosaic(task), *xs).astype(np.float64)
    with jax.enable_x64():
        ref = np.asarray(task.reference(*[jnp.asarray(np.asarray(x.astype(jnp.float32), np.float64)) for x in xs]))
    ref = dtypes.round_to(ref.astype(np.float32), dtype).astype(np.float64)
    tol = dtypes.tolerances(task)[dtype]
    err = np.abs(out - ref)
    assert out.shape == ref.shape
    assert np.all(err <= tol["atol"] + tol["rtol"] * np.abs(ref)), (task_name, dtype, err.max())
    assert np.linalg.norm(out - ref) <= tol["rel_norm"] * np.linalg.norm(ref), (task_name, dtype)


def test_causal_attention_matches_its_reference():
    """The diagonal tile's mask, the longest-first block order, the float32 v split."""
    check_against_reference("attention_forward", "float32")


def test_attention_holds_offset_rows_at_bfloat16():
    """Scores shifted by up to 1e3 a row (the offset case): the running max keeps exp2 finite,
    p @ v as hi + lo bfloat16 terms."""
    check_against_reference("multi_head_attention", "bfloat16", case="offset")


def test_shapes_the_tiles_cannot_cover_are_refused_by_name():
    q = jnp.zeros((1, 96, 64), jnp.float32)
    with pytest.raises(ValueError, match="flash_attention: .*sequence 96"):
        mosaic_attention.attention(q, q, q, causal=False, name="flash_attention")


def test_probabilities_over_several_tiles_and_column_splits():
    """qk_softmax's kernel where SMALL has one key tile: (256, 64) in 64-key tiles over a
    two-slot ring, two column splits each repeating the first pass; every row sums to 1."""
    rng = np.random.default_rng(3)
    q, k = (jnp.asarray(rng.standard_normal((256, 64)), jnp.float32) for _ in range(2))
    cfg = mosaic_attention.Config(block_kv=64, stages=2, col_splits=2)
    got = run_interpreted(lambda a, b: mosaic_qk_softmax.probabilities(a, b, name="qk_softmax", config=cfg), q, k)
    s = np.asarray(q, np.float64) @ np.asarray(k, np.float64).T / 8.0
    want = np.exp(s - s.max(axis=1, keepdims=True))
    want /= want.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(got, want, rtol=2e-3, atol=1e-6)


def test_the_warp_specialised_kernel_is_refused_by_the_interpreter_by_name():
    q = jnp.zeros((1, 256, 64), jnp.bfloat16)
    cfg = mosaic_attention.Config(block_kv=128, stages=2, compute_wgs=2)
    with pytest.raises(Exception, match="num_threads=3"):
        run_interpreted(lambda *qkv: mosaic_attention.attention(*qkv, causal=False, name="t", config=cfg), q, q, q)


def test_key_splits_merge_to_the_reference():
    """flash_attention at SMALL splits its 128 keys over two CTAs a query block (the grid would
    have two CTAs): merge_splits rescales each part to the common row max, on rows offset by up
    to 1e3 (each split's max differs)."""
    assert mosaic_attention.config_for("flash_attention", 128, 32, 4).kv_splits == 2
    check_against_reference("flash_attention", "float32", case="offset")


def test_the_ring_wraps_within_each_key_split():
    """(2, 512, 64) float32 in 64-key tiles, 2 slots, 2 splits: each split's CTA walks 4 tiles,
    refilling each slot twice, and splits v into bfloat16 halves per tile."""
    rng = np.random.default_rng(5)
    q, k, v = (jnp.asarray(rng.standard_normal((2, 512, 64)), jnp.float32) for _ in range(3))
    cfg = mosaic_attention.Config(block_kv=64, stages=2, kv_splits=2)
    got = run_interpreted(lambda *qkv: mosaic_attention.attention(*qkv, causal=False, name="t", config=cfg), q, k, v)
    q64, k64, v64 = (np.asarray(t, np.float64) for t in (q, k, v))
    s = np.einsum("gqd,gkd->gqk", q64, k64) / 8.0
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    want = np.einsum("gqk,gkd->gqd", p / p.sum(axis=-1, keepdims=True), v64)
    np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-3)
