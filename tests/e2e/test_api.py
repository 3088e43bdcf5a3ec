"""The Python API (python/pallasbench/api.py) end to end on the CPU: the binary's judgement, read
back as records; usage errors as exceptions."""
import json
from pathlib import Path

import pytest

import pallasbench
from e2e_support import CANDIDATES, ROOT

ADVERSARIAL = ROOT / "tests" / "adversarial"
HALF_SOFTMAX = "import jax\n\ndef kernel(x):\n    return 0.5 * jax.nn.softmax(x, axis=-1)\n"


@pytest.fixture(autouse=True)
def harness_python(env, monkeypatch):
    monkeypatch.setenv("PALLASBENCH_PYTHON", env["PALLASBENCH_PYTHON"])


def test_tasks_lists_the_suite():
    level3 = pallasbench.tasks(level=3)
    assert len(level3) == 8 and all(t["level"] == 3 for t in level3)
    assert {"name", "category", "sizes"} <= set(level3[0])


def test_a_batch_gives_each_candidate_its_record_in_order():
    """A suite kernel (its task file), an adversarial candidate and an inline source (a softmax at
    half its value), in one call: the files by path=, the source by source=, records in that order;
    the source's record names it by its request id, never by the temporary file it ran from, and
    its failure carries the worst elements and the hint."""
    records = pallasbench.evaluate("softmax", path=[ROOT / "tasks" / "level1" / "softmax.py",
                                                    str(ADVERSARIAL / "softmax_xla.py")],
                                   source=HALF_SOFTMAX, device="cpu", no_timing=True)
    assert [r["request_id"] for r in records] == ["0", "1", "2"]
    own, xla, half = records
    assert own["status"] == "ok" and own["result"]["robustness_passed"]
    assert xla["status"] == "ok" and not xla["result"]["robustness_passed"]
    assert not xla["result"]["filters"]["source_analysis"]["passed"]
    assert half["status"] == "incorrect" and not half["result"]["correctness_passed"]
    # `diff`: from the suite's task file to the candidate; none for the task file itself.
    assert own["diff"] == ""
    assert xla["diff"].startswith("--- tasks/level1/softmax.py\n+++ candidate\n@@ ")
    assert "\n+    return 0.5 * jax.nn.softmax(x, axis=-1)\n" in half["diff"]
    assert half["candidate"]["path"] == "request:2" and half["module_name"] == "request:2"
    assert "pallasbench-batch-" not in json.dumps(half)
    # The failure says where and why: the worst elements, and the factor the data shows.
    failed = half["correctness"]["seeds"][-1]
    assert "the reference times 0.5: a constant factor" in failed["hint"]
    assert failed["hint"] in half["error"]["message"]
    assert len(failed["worst"]) == 8 and all(len(w["index"]) == 2 for w in failed["worst"])
    worst = failed["worst"][0]
    assert worst["candidate"] == pytest.approx(worst["reference"] / 2, rel=1e-5)
    assert worst["error"] == max(w["error"] for w in failed["worst"])


def test_one_candidate_gives_one_record_and_run_gives_the_suites():
    record = pallasbench.evaluate("relu", path=str(CANDIDATES / "relu_good.py"), device="cpu", no_timing=True,
                                  seeds=3)
    assert isinstance(record, dict) and record["status"] == "ok"
    assert Path(record["candidate"]["path"]).name == "relu_good.py"
    records = pallasbench.run("relu", "add", device="cpu", no_timing=True)
    assert [r["kernel_name"] for r in records] == ["add", "relu"] and all(r["status"] == "ok" for r in records)


def test_usage_errors_raise_with_the_binarys_message():
    with pytest.raises(pallasbench.UsageError, match="unknown task 'no_such_task'"):
        pallasbench.evaluate("no_such_task", source="def kernel(x): return x", device="cpu")
    with pytest.raises(pallasbench.UsageError, match="--seeds 1"):
        pallasbench.evaluate("relu", source="def kernel(x): return x", device="cpu", seeds=1)
    # An unknown keyword is an unknown flag: the binary's complaint names it, whole.
    with pytest.raises(pallasbench.UsageError, match="--no-such-flag"):
        pallasbench.evaluate("relu", source="def kernel(x): return x", device="cpu", no_such_flag=True)


def test_a_path_is_a_path_and_a_source_a_source():
    """Nothing is guessed: a mistyped path is a missing file, not source text; a string where a
    path or source belongs is refused by its keyword."""
    with pytest.raises(FileNotFoundError, match="candidate file not found: relu_godo.py"):
        pallasbench.evaluate("relu", path="relu_godo.py")
    with pytest.raises(TypeError):
        pallasbench.evaluate("relu", str(CANDIDATES / "relu_good.py"))  # positional: path= or source=?
    with pytest.raises(TypeError, match="source\\[0\\]: PosixPath where source= takes source text"):
        pallasbench.evaluate("relu", source=CANDIDATES / "relu_good.py")
    with pytest.raises(TypeError, match="path= .* or source="):
        pallasbench.evaluate("relu")
