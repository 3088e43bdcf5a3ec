"""Every variant in bench/variants/genomics.py: SMALL in interpret mode against the reference
at float32 (exact for the integer tasks), and Pallas's Triton lowering for CUDA at MEDIUM and
LARGE (block rules, supported primitives) under the variant's tuning values."""

from pathlib import Path

import jax
import numpy as np
import pytest

from pallasbench.task import registry, tuning
from pallasbench.worker import interpret
import interpret_runs

pytestmark = pytest.mark.bench_variants  # `make test-variants`, not `make test` (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]


def _variants():
    return [(task, name, dict(values)) for task, found in tuning.read_variants(ROOT / "bench/variants/genomics.py").items()
            for name, values in found.items()]


VARIANTS = _variants()
IDS = [f"{task}-{name}" for task, name, _ in VARIANTS]


@pytest.mark.parametrize("task_name, name, values", VARIANTS, ids=IDS)
def test_variant_matches_reference_at_small(task_name, name, values):
    task = registry.load(task_name)
    inputs = task.make_inputs(np.random.default_rng(0), task.SHAPES["small"])
    with jax.default_matmul_precision("highest"):
        ref = np.asarray(jax.jit(task.reference)(*inputs)).astype(np.float64)
    with tuning.variant(task_name, **tuning.tuning_values(values)):
        out = interpret_runs.run(lambda *xs: task.kernel(*xs), *inputs)  # once per distinct module
    assert not tuning.active()
    assert out.shape == ref.shape
    tol = task.TOLERANCE
    diff = np.abs(out.astype(np.float64) - ref)
    assert np.all(diff <= tol.atol + tol.rtol * np.abs(ref)), (name, diff.max())
    assert np.linalg.norm(diff) <= tol.rel_norm * np.linalg.norm(ref), name


@pytest.mark.parametrize("size", ["medium", "large"])
@pytest.mark.parametrize("task_name, name, values", VARIANTS, ids=IDS)
def test_variant_lowers_for_cuda(task_name, name, values, size):
    task = registry.load(task_name)
    inputs = task.make_inputs(np.random.default_rng(0), task.SHAPES["small"])
    avals = [jax.ShapeDtypeStruct(task.SHAPES[size][i.name], x.dtype) for i, x in zip(task.INPUTS, inputs)]
    with tuning.variant(task_name, **tuning.tuning_values(values)), interpret.suspended():
        lowered = jax.jit(lambda *xs: task.kernel(*xs)).trace(*avals).lower(lowering_platforms=("cuda",))
    assert "__gpu$xla.gpu.triton" in lowered.as_text()
