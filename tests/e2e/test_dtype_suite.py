"""The whole suite at the low-precision dtypes (issue 18's CI gate): `run --dtype bfloat16` and
`--dtype float16` at SMALL on the CPU, no timing, each task's Triton kernel at one of the two (the
tasks alternate by name, so both dtypes see every family; the GPU runs take every task at both:
bench/results/). Every task is correct and robust, its stress
cases ran at the dtype, no float type below the dtype is inside its kernels, its record names the
dtype and the tolerance applied (docs/dtypes.md's bound, or exact), its float inputs arrive at
the dtype and its output leaves at it from a Pallas kernel; a task whose only inputs are integers
keeps its float32 output (docs/dtypes.md)."""
import json
import re

import pytest

from e2e_support import ROOT, run_cli
from pallasbench.task import dtypes, registry

EXACT = {"atol": 0.0, "rtol": 0.0, "rel_norm": 0.0}
INTEGERS = {"int8", "int32", "int64", "uint8", "uint32", "bool"}


def documented_bounds() -> dict:
    """dtype -> {atol, rtol, rel_norm} from docs/dtypes.md's table."""
    text = (ROOT / "docs" / "dtypes.md").read_text()
    bounds = {}
    for dtype, atol, rtol, rel_norm in re.findall(
            r"^\| (bfloat16|float16) \| ([0-9.e-]+) \| ([0-9.e-]+) \| ([0-9.e-]+) \|$", text, re.M):
        bounds[dtype] = {"atol": float(atol), "rtol": float(rtol), "rel_norm": float(rel_norm)}
    assert set(bounds) == {"bfloat16", "float16"}, "docs/dtypes.md's tolerance table moved"
    return bounds


def test_documented_bounds_are_the_harness_bounds():
    """docs/dtypes.md's table is what python/pallasbench/task/dtypes.py applies."""
    assert documented_bounds() == {d: b.as_dict() for d, b in dtypes.BOUNDS.items()}


@pytest.fixture(scope="module")
def suite():
    return registry.discover()  # the task files, by name (nothing imported)


# Every task's Triton kernel at one low-precision dtype, alternating by name (both dtypes took
# 2 x 48 s of one core of CI's ~500 s: the dtype logic is shared, a kernel's 16-bit path is the
# same code at either dtype, and float16's range is checked by the matmul class's shrunken large
# case in tests/python/test_reference_requests.py); and one Mosaic GPU task of each family at
# bfloat16 (their kernels are lowered at LARGE bfloat16 in tests/python/test_mosaic_families.py,
# and run on the default backend in test_run's whole suite): an interpreted Mosaic GPU kernel
# costs the CPU about twice a Triton one's time.
MOSAIC_FAMILIES = ("relu", "softmax", "reduce_sum", "col_sum")
ALL_TASKS = sorted(registry.discover())
HALVES = {"bfloat16": tuple(ALL_TASKS[0::2]), "float16": tuple(ALL_TASKS[1::2])}


@pytest.fixture(scope="module", params=[("bfloat16", "triton", HALVES["bfloat16"]),
                                        ("float16", "triton", HALVES["float16"]),
                                        ("bfloat16", "mosaic", MOSAIC_FAMILIES)],
                ids=["bfloat16", "float16", "bfloat16-mosaic"])
def run(request, env, tmp_path_factory):
    dtype, backend, tasks = request.param
    out = tmp_path_factory.mktemp(f"suite_{dtype}_{backend}")
    # One lane: the other pytest worker has the other core.
    result = run_cli(env, "run", *(tasks or ()), "--dtype", dtype, "--backend", backend, "--size", "small",
                     "--device", "cpu", "--no-timing", "--jobs", "1", "--out", out, timeout=1500)
    records = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    assert all(r["config"]["backend"] == ("mosaic_gpu" if backend == "mosaic" else backend) for r in records)
    return dtype, result, records, tasks


def test_every_task_is_correct_and_robust(run, suite):
    dtype, result, records, tasks = run
    failed = {r["kernel_name"]: (r["status"], (r.get("error") or {}).get("message", ""),
                                 [f for f, v in r["result"]["filters"].items() if not v["passed"]])
              for r in records if r["status"] != "ok" or not r["result"]["robustness_passed"]}
    assert not failed, failed
    assert sorted(r["kernel_name"] for r in records) == sorted(tasks)
    assert set(HALVES["bfloat16"]) | set(HALVES["float16"]) == set(suite)  # every task at a low precision
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


IR_TYPES = {"bfloat16": "bf16", "float16": "f16"}


def outer_nodes(record, primitive):
    return [n for n in record["artifacts"]["jaxpr_dag"]["nodes"]
            if n["primitive"] == primitive and not n["inside_pallas"]]


def test_records_are_at_the_dtype(run):
    dtype, _, records, _ = run
    bound = documented_bounds()[dtype]
    for r in records:
        name = r["kernel_name"]
        assert r["dtype"] == dtype and r["config"]["dtype"] == dtype, name
        assert r["correctness"]["stress"], name  # the stress cases ran at the dtype too
        assert r["precision"]["downgrades"] == [], (name, r["precision"])  # nothing below the dtype inside
        assert r["correctness"]["below_class"] is False, name
        assert r["tolerance"] == EXACT or all(r["tolerance"][k] <= bound[k] for k in bound), (name, r["tolerance"])
        inputs = {o["dtype"] for n in outer_nodes(r, "input") for o in n["outputs"]}
        [output] = outer_nodes(r, "output")
        assert "float32" not in inputs, (name, inputs)  # every float input arrives at the dtype
        if inputs <= INTEGERS:  # nothing names another float type: a float output stays float32
            assert output["outputs"][0]["dtype"] in INTEGERS | {"float32"}, name
            continue
        assert output["outputs"][0]["dtype"] in INTEGERS | {dtype}, name
        if output["outputs"][0]["dtype"] == dtype:  # made by a Pallas kernel at the dtype
            if r["backend"] == "triton":
                assert dtype in {o["dtype"] for n in outer_nodes(r, "pallas_call") for o in n["outputs"]}, name
            else:  # the jaxpr does not describe a plgpu.kernel's outputs: its IR's types say the dtype
                assert IR_TYPES[dtype] in r["precision"]["float_types"], (name, r["precision"])
