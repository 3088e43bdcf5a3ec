"""Every variant in bench/variants/rows.py: SMALL in interpret mode against the reference at
float32, and Pallas's Triton lowering for CUDA at MEDIUM and LARGE (block rules, supported
primitives) under the variant's tuning values. Variants that change the arithmetic (not only the
launch shape) also run every stress case of their task against the float64 reference rounded to
the dtype, as the harness checks them: at float32 (the tight tolerance; the first dtype a variant
allows if not float32), or at every dtype it allows with ROWS_VARIANTS_ALL_DTYPES=1 (~1 min)."""

import os
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from pallasbench.task import dtypes, registry, stress, tuning
from pallasbench.worker import interpret
from pallasbench.worker.reference import Reference
from task_avals import task_avals

pytestmark = pytest.mark.bench_variants  # `make test-variants`, not `make test` (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]
# Keys of a launch shape only: interpret mode ignores warps and runs any block exactly, so
# variants setting nothing else need no stress run of their own (scatter_add's sort_chunk: the
# sort is stable, so every chunk size gives the same order).
LAUNCH_KEYS = {"block_bytes", "num_warps", "num_stages", "min_programs", "tile", "rows", "cols",
               "max_cols", "sort_chunk"}


def _variants():
    return [(task, name, dict(values)) for task, found in tuning.read_variants(ROOT / "bench/variants/rows.py").items()
            for name, values in found.items()]


VARIANTS = _variants()
IDS = [f"{task}-{name}" for task, name, _ in VARIANTS]


def _arithmetic():
    """(task, arithmetic values, dtypes) once per distinct arithmetic form: the launch keys
    dropped, since they leave each element's arithmetic as it is."""
    seen = {}
    for task, _, values in VARIANTS:
        form = {k: v for k, v in tuning.tuning_values(values).items() if k not in LAUNCH_KEYS}
        if form:
            key = (task, tuple(sorted(form.items())))
            allowed = set(values.get("_dtypes", dtypes.DTYPES))
            seen[key] = seen.get(key, set()) | allowed
    every = os.environ.get("ROWS_VARIANTS_ALL_DTYPES") == "1"
    found = []
    for (task, form), allowed in seen.items():
        ordered = [d for d in dtypes.DTYPES if d in allowed]
        found += [(task, dict(form), d) for d in (ordered if every else ordered[:1])]
    return found


ARITHMETIC = _arithmetic()


def _interpreted():
    """The variants interpret mode can tell apart: it ignores warps and stages, so a variant
    setting only those runs the default kernel (test_tasks), and two differing only there, one."""
    seen, found = set(), []
    for task, name, values in VARIANTS:
        key = (task, tuple(sorted((k, str(v)) for k, v in values.items()
                                  if k not in ("num_warps", "num_stages"))))
        if len(key[1]) and key not in seen:
            seen.add(key)
            found.append((task, name, values))
    return found


INTERPRETED = _interpreted()


@pytest.mark.parametrize("task_name, name, values", INTERPRETED, ids=[f"{t}-{n}" for t, n, _ in INTERPRETED])
def test_variant_matches_reference_at_small(task_name, name, values):
    only = values.get("_dtypes")
    dtype = "float32" if only is None or "float32" in only else only[0]
    task = registry.load(task_name)
    inputs = [_at(x, dtype) for x in task.make_inputs(np.random.default_rng(0), task.SHAPES["small"])]
    _check(task, inputs, dtype, values, scale_atol=False)


@pytest.mark.parametrize("size", ["medium", "large"])
@pytest.mark.parametrize("task_name, name, values", VARIANTS, ids=IDS)
def test_variant_lowers_for_cuda(task_name, name, values, size, monkeypatch):
    """...and every key it sets is one the kernel asks for (a typo would time the default)."""
    asked, choice = set(), tuning.choice

    def recording(task, key, default):
        if task == task_name:
            asked.add(key)
        return choice(task, key, default)

    monkeypatch.setattr(tuning, "choice", recording)
    only = values.get("_dtypes")
    dtype = jnp.float32 if only is None or "float32" in only else jnp.dtype(dtypes.numpy_dtype(only[0]))
    task = registry.load(task_name)
    avals = task_avals(task, size, dtype)
    with tuning.variant(task_name, **tuning.tuning_values(values)), interpret.suspended():
        lowered = jax.jit(lambda *xs: task.kernel(*xs)).trace(*avals).lower(lowering_platforms=("cuda",))
    assert "__gpu$xla.gpu.triton" in lowered.as_text()
    assert set(tuning.tuning_values(values)) <= asked, sorted(set(tuning.tuning_values(values)) - asked)


@pytest.mark.parametrize("task_name, form, dtype", ARITHMETIC,
                         ids=[f"{t}-{'-'.join(map(str, f.values()))}-{d}" for t, f, d in ARITHMETIC])
def test_arithmetic_variant_passes_stress_cases(task_name, form, dtype):
    task = registry.load(task_name)
    for case in task.STRESS.run:
        drawn = stress.make_inputs(task, case, np.random.default_rng(11), task.SHAPES["small"])
        _check(task, [_at(x, dtype) for x in drawn], dtype, form, scale_atol=True, case=case)


def _at(x, dtype):
    """A float32 input rounded to `dtype` and held at it, as the harness draws it."""
    x = np.asarray(x)
    if x.dtype != np.float32 or dtype == "float32":
        return jnp.asarray(x)
    return jnp.asarray(dtypes.round_to(x, dtype)).astype(dtypes.numpy_dtype(dtype))


def _check(task, inputs, dtype, values, *, scale_atol, case=None):
    wide = [np.asarray(x.astype(jnp.float32)) if jnp.issubdtype(x.dtype, jnp.floating) else np.asarray(x)
            for x in inputs]
    ref = np.asarray(Reference()._run_reference(task, wide)).astype(np.float64)
    if dtype != "float32":
        with np.errstate(over="ignore"):
            ref = ref.astype(np.float32).astype(dtypes.numpy_dtype(dtype)).astype(np.float64)
        if not np.isfinite(ref).all():
            pytest.skip(f"{case}: the reference overflows {dtype} (the harness shrinks the case)")
    with tuning.variant(task.NAME, **tuning.tuning_values(values)):
        out = np.asarray(jax.jit(lambda *xs: task.kernel(*xs))(*inputs).astype(jnp.float32))
    assert not tuning.active()
    out = out.astype(np.float64)
    tol = dtypes.tolerances(task)[dtype]
    atol = tol["atol"] * (max(1.0, float(np.sqrt(np.mean(ref ** 2)))) if scale_atol else 1.0)
    diff = np.abs(out - ref)
    assert out.shape == ref.shape and np.isfinite(out).all(), (case, dtype)
    assert np.all(diff <= atol + tol["rtol"] * np.abs(ref)), (case, dtype, values, diff.max())
    assert np.linalg.norm(diff) <= tol["rel_norm"] * np.linalg.norm(ref), (case, dtype, values)
