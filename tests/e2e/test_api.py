"""The Python API (python/pallasbench/api.py) end to end on the CPU: the binary's judgement, read
back as records; usage errors as exceptions."""
from pathlib import Path

import pytest

import pallasbench
from e2e_support import CANDIDATES, ROOT

ADVERSARIAL = ROOT / "tests" / "adversarial"


@pytest.fixture(autouse=True)
def harness_python(env, monkeypatch):
    monkeypatch.setenv("PALLASBENCH_PYTHON", env["PALLASBENCH_PYTHON"])


def test_tasks_lists_the_suite():
    level3 = pallasbench.tasks(level=3)
    assert len(level3) == 8 and all(t["level"] == 3 for t in level3)
    assert {"name", "category", "sizes"} <= set(level3[0])


def test_a_batch_gives_each_candidate_its_record_in_order():
    """A suite kernel (its task file), an adversarial candidate and an inline source, in one call."""
    records = pallasbench.evaluate("softmax", [ROOT / "tasks" / "level1" / "softmax.py",
                                               ADVERSARIAL / "softmax_xla.py",
                                               "def kernel(x):\n    return x\n"],
                                   device="cpu", no_timing=True)
    assert [r["request_id"] for r in records] == ["0", "1", "2"]
    own, xla, identity = records
    assert own["status"] == "ok" and own["result"]["robustness_passed"]
    assert xla["status"] == "ok" and not xla["result"]["robustness_passed"]
    assert not xla["result"]["filters"]["source_analysis"]["passed"]
    assert identity["status"] in ("incorrect", "compile_error") and not identity["result"]["correctness_passed"]


def test_one_candidate_gives_one_record_and_run_gives_the_suites():
    record = pallasbench.evaluate("relu", str(CANDIDATES / "relu_good.py"), device="cpu", no_timing=True, seeds=3)
    assert isinstance(record, dict) and record["status"] == "ok"
    assert Path(record["candidate"]["path"]).name == "relu_good.py"
    records = pallasbench.run("relu", "add", device="cpu", no_timing=True)
    assert [r["kernel_name"] for r in records] == ["add", "relu"] and all(r["status"] == "ok" for r in records)


def test_usage_errors_raise_with_the_binarys_message():
    with pytest.raises(pallasbench.UsageError, match="unknown task 'no_such_task'"):
        pallasbench.evaluate("no_such_task", "def kernel(x): return x", device="cpu")
    with pytest.raises(pallasbench.UsageError, match="--seeds 1"):
        pallasbench.evaluate("relu", "def kernel(x): return x", device="cpu", seeds=1)
    with pytest.raises(TypeError, match="a path or a source string"):
        pallasbench.evaluate("relu", 42)
