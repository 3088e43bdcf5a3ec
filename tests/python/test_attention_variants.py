"""Every variant in bench/variants/attention.py: SMALL float32 correctness in interpret mode and
Triton lowering for CUDA at MEDIUM and LARGE (the GPU run times them; a variant that fails to
lower there would be a lost device minute).

`python tests/python/test_attention_variants.py [task ...]` checks more than the test has time
for: every dtype and stress case at SMALL, as bench/probe.py and the harness would run them.
"""
import os
import sys
from pathlib import Path

os.environ.setdefault("JAX_PLATFORMS", "cpu")
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from pallasbench import task as tl  # noqa: E402
from pallasbench.task import dtypes, registry, stress, tuning  # noqa: E402
from pallasbench.worker import interpret, jaxpr_info  # noqa: E402
import interpret_runs  # noqa: E402

pytestmark = pytest.mark.bench_variants  # `make test-variants`, not `make test` (tests/conftest.py)


VARIANTS = tuning.read_variants(ROOT / "bench/variants/attention.py")
CASES = [(task, name) for task, named in VARIANTS.items() for name in named]


def _values(task, name):
    return tuning.tuning_values(VARIANTS[task][name])


def _error(out, ref, tol) -> str | None:
    """Why `out` misses `ref` by more than the tolerance dict allows (None when it does not)."""
    out = np.asarray(np.asarray(out).astype(np.float32), np.float64)
    ref = np.asarray(np.asarray(ref).astype(np.float32), np.float64)
    diff = np.abs(out - ref)
    if out.shape != ref.shape or not np.all(np.isfinite(out)):
        return f"shape {out.shape} vs {ref.shape} or not finite"
    worst = float(np.max(diff / (tol["atol"] + tol["rtol"] * np.abs(ref))))
    rel = float(np.linalg.norm(out - ref) / max(np.linalg.norm(ref), 1e-30))
    if worst > 1 or rel > tol["rel_norm"]:
        return f"elementwise {worst:.2f}x of the bound, rel_norm {rel:.2e}"
    return None


def check(task_name, values, dtype="float32", case=None, seed=0) -> str | None:
    module = registry.load(task_name)
    shapes = module.SHAPES["small"]
    factor = module.STRESS.large_factor
    while True:  # as worker/reference.py: the large factor shrinks until the dtype holds the reference
        rng = np.random.default_rng(seed)
        raw = (stress.make_inputs(module, case, rng, shapes, factor) if case
               else module.make_inputs(rng, shapes))
        raw = [dtypes.round_to(np.asarray(x, np.float32), dtype) for x in raw]
        with jax.default_matmul_precision("highest"):
            ref = np.asarray(jax.jit(module.reference)(*raw))
        if case != "large" or dtype == "float32" or factor <= 1:
            break
        with np.errstate(over="ignore"):
            if np.all(np.isfinite(ref.astype(dtypes.numpy_dtype(dtype)))):
                break
        factor = max(1.0, factor / 10 ** 0.5)
    tol = dict(dtypes.tolerances(module)[dtype])
    if case:  # the harness's stress bound (src/check/correctness.cpp): atol x max(1, rms(ref))
        tol["atol"] *= max(1.0, float(np.sqrt(np.mean(np.square(ref.astype(np.float64))))))
    fn = lambda *xs: module.kernel(*xs)  # noqa: E731 - fresh: no trace cached across variants
    with tuning.variant(task_name, **values):
        # Lowered per variant; compiled and run once per distinct module (many variants are one
        # program at SMALL: tiles clamped to the array, warps and stages interpret mode ignores).
        out = interpret_runs.run(fn, *[jnp.asarray(x).astype(dtype) for x in raw])
    return _error(out, ref, tol)


def lower(task_name, values, size, dtype="float32"):
    module = registry.load(task_name)
    avals = [jax.ShapeDtypeStruct(module.SHAPES[size][i.name], dtype) for i in module.INPUTS]
    fn = lambda *xs: module.kernel(*xs)  # noqa: E731
    with tuning.variant(task_name, **values), interpret.suspended():
        closed = jax.make_jaxpr(fn)(*avals)
        for call in jaxpr_info.pallas_calls(closed):
            for block, space, array in zip(call["block_shapes"], call["memory_spaces"],
                                           call["array_shapes"]):
                if space != "any":
                    tl.check_block(f"{task_name}/{size}", block)
                    assert all(a % b == 0 for a, b in zip(array, block)), (block, array)
        text = jax.jit(fn).trace(*avals).lower(lowering_platforms=("cuda",)).as_text()
    assert "__gpu$xla.gpu.triton" in text
    return text


@pytest.mark.parametrize("task_name,name", CASES)
def test_variant_small_and_lowers_for_cuda(task_name, name):
    """At float32, or the first dtype a variant is restricted to."""
    values = _values(task_name, name)
    dtype = VARIANTS[task_name][name].get("_dtypes", ["float32"])[0]
    mosaic = "mosaic" in (values.get("proj_backend"), values.get("mode"))
    if mosaic:  # Hopper only: refused by name in interpret mode
        with pytest.raises(NotImplementedError, match=f"{task_name}.*Hopper"):
            check(task_name, values, dtype)
    else:
        assert check(task_name, values, dtype) is None
    for size in ("medium", "large"):  # the sizes the GPU probe runs; SMALL ran just above
        text = lower(task_name, values, size, dtype)
        # (a shipped table may put other variants on Mosaic at some sizes: one direction only)
        assert "mosaic_gpu" in text or not mosaic, "a Mosaic variant lowers to the Mosaic GPU kernel"
    assert tuning.active() == {}


def test_attention_forward_precise_rows_at_float32_only():
    """float32, S >= 2048: the first query block in its own call (split-TF32 dots), written into
    the main call's output through the alias. SMALL (2 query blocks of 64) with precise_rows 64
    runs both calls, with 128 the precise one alone, at the large stress case (v x1e3) against
    the float64-grade reference; the call structure at LARGE and MEDIUM is read from the jaxpr."""
    assert check("attention_forward", {"precise_rows": 64}, "float32", "large") is None
    assert check("attention_forward", {"precise_rows": 128}, "float32", "large") is None  # precise call alone
    module = registry.load("attention_forward")

    def calls(size, dtype):
        avals = [jax.ShapeDtypeStruct(module.SHAPES[size][i.name], dtype) for i in module.INPUTS]
        with interpret.suspended():
            closed = jax.make_jaxpr(lambda *xs: module.kernel(*xs))(*avals)
        return [(c["name"], c["grid"]) for c in jaxpr_info.pallas_calls(closed)]

    assert calls("large", "float32") == [("attention_forward", [64, 31]), ("attention_forward_precise", [64, 1])]
    assert calls("large", "bfloat16") == [("attention_forward", [64, 64])]
    assert [name for name, _ in calls("medium", "float32")] == ["attention_forward"]  # S < PRECISE_MIN_SEQ
    lower("attention_forward", {}, "large")  # the aliased second call lowers for CUDA


def test_transformer_block_key_and_column_splits():
    """kv_splits and out_splits clamp to 1 at SMALL (16 rows, one 32-column tile): a shape with
    4 key tiles and 4 wo column tiles runs both paths in interpret mode."""
    module = registry.load("transformer_block")
    shapes = {"x": (64, 64), "wq": (64, 16), "wk": (64, 16), "wv": (64, 16), "wo": (16, 64), "wff": (64, 64)}
    raw = module.make_inputs(np.random.default_rng(0), shapes)
    with jax.default_matmul_precision("highest"):
        ref = np.asarray(jax.jit(module.reference)(*raw))
    tol = dtypes.tolerances(module)["float32"]
    for values in ({"kv_splits": 2, "out_splits": 2}, {"out_splits": 4}, {"kv_splits": 4}):
        fn = lambda *xs: module.kernel(*xs)  # noqa: E731
        with tuning.variant("transformer_block", bq=16, bk=16, bn_out=16, **values):
            closed = jax.make_jaxpr(fn)(*raw)
            out = jax.jit(fn)(*raw)
        grids = {c["name"]: c["grid"] for c in jaxpr_info.pallas_calls(closed)}
        assert grids["transformer_block_attention_out"] == [4, values.get("out_splits", 1)], grids
        assert ("transformer_block_attention_part" in grids) == ("kv_splits" in values), grids
        assert _error(out, ref, tol) is None, values


if __name__ == "__main__":
    interpret.enable_interpret_default()
    for task_name, name in CASES:
        if sys.argv[1:] and task_name not in sys.argv[1:]:
            continue
        module = registry.load(task_name)
        only = VARIANTS[task_name][name].get("_dtypes", dtypes.DTYPES)
        for dtype in only:
            for case in (None, *module.STRESS.run):
                why = check(task_name, _values(task_name, name), dtype, case)
                print(f"{task_name:22} {name:24} {dtype:9} {case or 'normal':7} {why or 'ok'}", flush=True)
