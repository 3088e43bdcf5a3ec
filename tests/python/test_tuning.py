"""pallasbench.task.tuning: the values a tuning run may set while a kernel traces, and the
matmul variants bench/probe.py times (each must be a correct kernel, not only a fast one)."""

import importlib.util
from pathlib import Path

import jax
import numpy as np
import pytest

from pallasbench.task import dtypes, registry, tuning

ROOT = Path(__file__).resolve().parents[2]


def test_choice_is_the_default_outside_a_variant():
    assert tuning.choice("matmul", "bm", 128) == 128
    assert tuning.active() == {}


def test_variant_sets_values_for_its_task_only_and_nests():
    with tuning.variant("matmul", bm=64):
        assert tuning.choice("matmul", "bm", 128) == 64
        assert tuning.choice("matmul", "bk", 32) == 32
        assert tuning.choice("swiglu", "bm", 128) == 128
        with tuning.variant("matmul", bk=16):
            assert (tuning.choice("matmul", "bm", 0), tuning.choice("matmul", "bk", 0)) == (64, 16)
        assert tuning.choice("matmul", "bk", 32) == 32
    assert tuning.active() == {}


def test_variant_is_undone_when_the_block_raises():
    with pytest.raises(RuntimeError):
        with tuning.variant("matmul", bm=64):
            raise RuntimeError("trace failed")
    assert tuning.active() == {}


def _matmul_variants():
    spec = importlib.util.spec_from_file_location("matmul_variants", ROOT / "bench" / "variants" / "matmul.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.VARIANTS["matmul"]


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_every_matmul_variant_is_correct_at_small(dtype):
    """Each variant of bench/variants/matmul.py for its dtypes, in interpret mode at SMALL,
    against the float32 reference (tests/python/conftest.py turns interpret mode on): a variant that changes the tiling must not change the result
    beyond the task's tolerance."""
    import jax.numpy as jnp

    module = registry.load("matmul")
    a, b = module.make_inputs(np.random.default_rng(0), module.SHAPES["small"])
    a, b = (jnp.asarray(dtypes.round_to(x, dtype)).astype(dtype) for x in (a, b))
    with jax.default_matmul_precision("highest"):
        ref = np.asarray(module.reference(a.astype(jnp.float32), b.astype(jnp.float32)), np.float64)
    tol = dtypes.tolerances(module)[dtype]
    ran = 0
    for name, values in _matmul_variants().items():
        values = dict(values)
        if dtype not in values.pop("_dtypes", [dtype]):
            continue
        with tuning.variant("matmul", **values):
            out = jax.jit(lambda x, y: module.kernel(x, y))(a, b)
        out = np.asarray(out.astype(jnp.float32), np.float64)
        rel = np.linalg.norm(out - ref) / np.linalg.norm(ref)
        assert rel <= tol["rel_norm"], f"variant {name} at {dtype}: relative error {rel:.2e}"
        assert np.all(np.abs(out - ref) <= tol["atol"] + tol["rtol"] * np.abs(ref)), name
        ran += 1
    assert ran >= 8
    assert tuning.active() == {}
