"""The genomics Mosaic GPU kernels (kernels/mosaic_genomics*.py): each task's kernel lowers for
CUDA on this CPU machine at MEDIUM and LARGE (float32 and bfloat16 where the task has float
inputs; the uint8 tasks have no float input, so one dtype covers them) as one mosaic_gpu_v2
call, and runs in the harness's Mosaic GPU interpreter at SMALL, matching its task's reference exactly
(integer outputs) or within the task's tolerance, on a seed and on the degenerate (poly-A) case."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from pallasbench.task import dtypes, registry, stress
from pallasbench.task.tolerance import EXACT
from pallasbench.worker import interpret, mosaic_interpret
from task_avals import task_avals

MOSAIC_CALL = "mosaic_gpu_v2"
UINT8_TASKS = ["gc_content", "nucleotide_onehot", "sequence_match", "hamming_distance",
               "reverse_complement", "kmer_count"]
FLOAT_TASKS = ["pwm_scan", "conv1d_genomic", "triangle_update"]


def _kernel(task):
    return task.BACKENDS["mosaic_gpu"]


def _lowered_text(task_name, size, dtype):
    task = registry.load(task_name)
    with interpret.suspended():
        fn = jax.jit(lambda *xs: _kernel(task)(*xs))
        return fn.trace(*task_avals(task, size, dtype)).lower(lowering_platforms=("cuda",)).as_text()


@pytest.mark.parametrize("size", ["medium", "large"])
@pytest.mark.parametrize("task_name", UINT8_TASKS)
def test_uint8_tasks_lower_for_cuda(task_name, size):
    text = _lowered_text(task_name, size, "float32")
    assert MOSAIC_CALL in text and "triton" not in text
    assert "stablehlo.convert" not in text  # bases go in as bytes, widened in the kernel


@pytest.mark.parametrize("size, dtype", [("medium", "float32"), ("medium", "bfloat16"),
                                         ("large", "float32"), ("large", "bfloat16")])
@pytest.mark.parametrize("task_name", FLOAT_TASKS)
def test_float_tasks_lower_for_cuda(task_name, size, dtype):
    text = _lowered_text(task_name, size, dtype)
    assert MOSAIC_CALL in text and "triton" not in text
    assert "stablehlo.convert" not in text


def _check(task_name, case, dtype="float32", seed=2):
    task = registry.load(task_name)
    rng = np.random.default_rng(seed)
    if case is None:
        xs = task.make_inputs(rng, task.SHAPES["small"])
        xs = [dtypes.round_to(a, dtype) if np.asarray(a).dtype == np.float32 else a for a in xs]
    else:
        xs = stress.make_inputs(task, case, rng, task.SHAPES["small"])
    xs = [jnp.asarray(a, dtype) if np.asarray(a).dtype == np.float32 else jnp.asarray(a) for a in xs]
    # The harness's interpreter (worker/mosaic_interpret.py): TMA copies past an array's end
    # read zeros and drop writes element by element, as on the GPU (JAX's own interpreter raises,
    # or with out_of_bounds_reads="uninitialized" drops a partly outside copy whole).
    mosaic_interpret.install()
    with interpret.forced(True):
        out = jax.jit(_kernel(task))(*xs)
    with jax.enable_x64():
        ref = task.reference(*[jnp.asarray(np.asarray(x.astype(jnp.float32), np.float64))
                               if jnp.issubdtype(x.dtype, jnp.floating) else x for x in xs])
    ref = np.asarray(ref)
    assert out.shape == ref.shape and out.dtype == task.reference(*xs).dtype
    out = np.asarray(out.astype(jnp.float32) if jnp.issubdtype(out.dtype, jnp.floating) else out, np.float64)
    if task.TOLERANCE == EXACT:
        np.testing.assert_array_equal(out, ref)
        return
    tol = dtypes.tolerances(task)[dtype]
    ref = dtypes.round_to(ref.astype(np.float32), dtype).astype(np.float64)
    err = np.abs(out - ref)
    assert np.all(err <= tol["atol"] + tol["rtol"] * np.abs(ref)), (task_name, case, err.max())
    assert np.linalg.norm(out - ref) <= tol["rel_norm"] * np.linalg.norm(ref), (task_name, case)


@pytest.mark.parametrize("case", [None, "degenerate"])
@pytest.mark.parametrize("task_name", UINT8_TASKS)
def test_interpreted_matches_reference(task_name, case):
    _check(task_name, case)


def test_kmer_count_counts_every_4mer():
    """The de Bruijn case: all 256 bins filled, each column of the accumulator used."""
    _check("kmer_count", "distinct")


@pytest.mark.parametrize("task_name, dtype, case", [("pwm_scan", "bfloat16", None), ("pwm_scan", "float32", "large"),
                                                    ("conv1d_genomic", "float32", None),
                                                    ("conv1d_genomic", "bfloat16", "degenerate"),
                                                    ("triangle_update", "float32", None)])
def test_float_tasks_interpreted_match_reference(task_name, dtype, case):
    _check(task_name, case, dtype)


def test_triangle_update_rows_path_matches_reference():
    """SMALL's 8 channels take the narrow kernel; 32 channels (MEDIUM's) take the per-row one."""
    task = registry.load("triangle_update")
    rng = np.random.default_rng(0)
    pair = jnp.asarray(rng.standard_normal((16, 16, 32)), jnp.float32)
    mask = jnp.asarray(rng.integers(0, 2, (16, 16)), jnp.float32)
    mosaic_interpret.install()
    with interpret.forced(True):
        out = np.asarray(jax.jit(_kernel(task))(pair, mask))
    np.testing.assert_allclose(out, np.asarray(task.reference(pair, mask)), rtol=1e-5, atol=1e-5)
