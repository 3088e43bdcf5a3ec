"""`run --dtype bfloat16|float16` end to end on the CPU: the suite's own kernels of each family are
correct and robust at the dtype, take and return it, and are held to docs/dtypes.md's bounds.

Cheap on purpose (one run of six tasks per dtype, no timing): the whole suite at both dtypes is
`build/pallasbench run --dtype D --no-timing` (about 70 s each at SMALL on one lane)."""
import json
import re

import pytest

from e2e_support import ROOT, run_cli
from pallasbench.task import dtypes

# One task per kernel family: elementwise, row-wise (two-pass row statistics), row reduction,
# tiled matmul, flash attention, and a genomics task whose only input is integer (its float32
# output stays float32: nothing it is given names another float type).
FLOAT_TASKS = ["sigmoid", "layernorm", "reduce_sum", "matmul", "flash_attention"]
INTEGER_INPUT_TASK = "nucleotide_onehot"


def documented_bounds() -> dict:
    """dtype -> {atol, rtol, rel_norm} from docs/dtypes.md's table."""
    text = (ROOT / "docs" / "dtypes.md").read_text()
    bounds = {}
    for dtype, atol, rtol, rel_norm in re.findall(
            r"^\| (bfloat16|float16) \| ([0-9.e-]+) \| ([0-9.e-]+) \| ([0-9.e-]+) \|$", text, re.M):
        bounds[dtype] = {"atol": float(atol), "rtol": float(rtol), "rel_norm": float(rel_norm)}
    assert set(bounds) == {"bfloat16", "float16"}, "docs/dtypes.md's tolerance table moved"
    return bounds


def outer_nodes(record, primitive):
    return [n for n in record["artifacts"]["jaxpr_dag"]["nodes"]
            if n["primitive"] == primitive and not n["inside_pallas"]]


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_suite_kernels_at_low_precision(env, tmp_path, dtype):
    tasks = [*FLOAT_TASKS, INTEGER_INPUT_TASK]
    result = run_cli(env, "run", *tasks, "--dtype", dtype, "--device", "cpu", "--size", "small",
                     "--no-timing", "--out", tmp_path, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = (tmp_path / "records.jsonl").read_text().splitlines()
    records = {r["kernel_name"]: r for r in map(json.loads, lines)}
    assert sorted(records) == sorted(tasks)
    bound = documented_bounds()[dtype]
    for name, r in records.items():
        assert r["status"] == "ok", (name, r.get("failure"))
        assert r["result"]["robustness_passed"], (name, r["result"]["filters"])
        assert r["dtype"] == dtype and r["config"]["dtype"] == dtype, name
        assert r["correctness"]["stress"], name  # the stress cases ran at the dtype too
        assert r["precision"]["downgrades"] == [], name  # nothing below the dtype inside
        [output] = outer_nodes(r, "output")
        calls = outer_nodes(r, "pallas_call")
        if name == INTEGER_INPUT_TASK:
            assert r["tolerance"] == {"atol": 0.0, "rtol": 0.0, "rel_norm": 0.0}  # exact stays exact
            assert output["outputs"][0]["dtype"] == "float32"
            assert {o["dtype"] for n in outer_nodes(r, "input") for o in n["outputs"]} == {"uint8"}
            continue
        assert r["tolerance"] == bound, name
        # Inputs arrive at the dtype; the output leaves at it, made by a Pallas kernel.
        assert {o["dtype"] for n in outer_nodes(r, "input") for o in n["outputs"]} == {dtype}, name
        assert output["outputs"][0]["dtype"] == dtype, name
        assert dtype in {o["dtype"] for n in calls for o in n["outputs"]}, name


def test_documented_bounds_are_the_harness_bounds():
    """docs/dtypes.md's table is what python/pallasbench/task/dtypes.py applies."""
    assert documented_bounds() == {d: b.as_dict() for d, b in dtypes.BOUNDS.items()}
