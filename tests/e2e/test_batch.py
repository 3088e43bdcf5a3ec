"""`eval --batch` end to end on the CPU: requests by file or inline source, each record as it is
done with its request's id, a hanging candidate costing only its own slot, and requests refused
before anything runs. (The adversarial corpus runs as one batch in test_adversarial.py; lanes
against one lane in test_run.py.)"""
import json

import pytest

from e2e_support import CANDIDATES, run_cli


def test_a_hanging_candidate_costs_only_its_slot(env, tmp_path):
    """A batch with a hang, a crash, an inline source and a file: each gets its own verdict, in
    the order they finish, each record naming its request."""
    batch = tmp_path / "requests.jsonl"
    good = (CANDIDATES / "relu_good.py").read_text()
    lines = [
        {"id": "hangs", "task": "relu", "path": str(CANDIDATES / "relu_hangs.py")},
        {"id": "aborts", "task": "relu", "path": str(CANDIDATES / "relu_aborts.py")},
        {"id": "inline-good", "task": "relu", "source": good},
        {"id": 4, "task": "add", "source": "def kernel(x, y):\n    return x +\n"},
    ]
    batch.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = run_cli(env, "eval", "--batch", batch, "--device", "cpu", "--no-timing", "--timeout", "12",
                     "--jobs", "2", "--json", timeout=600)
    assert result.returncode == 1, result.stderr[-2000:]
    records = {r["request_id"]: r for r in map(json.loads, result.stdout.splitlines())}
    assert set(records) == {"hangs", "aborts", "inline-good", "4"}
    assert records["hangs"]["status"] == "timeout", records["hangs"]["error"]
    assert records["aborts"]["status"] == "crashed", records["aborts"]["error"]
    assert records["inline-good"]["status"] == "ok" and records["inline-good"]["result"]["robustness_passed"]
    assert records["4"]["status"] == "compile_error" and "syntax error" in records["4"]["error"]["message"]
    assert records["4"]["kernel_name"] == "add"
    # Each progress line names its request, and the summary counts candidates, not tasks.
    for request_id, status in [("hangs", "timeout"), ("aborts", "crashed"), ("inline-good", "ok"),
                               ("4", "compile_error")]:
        task = "add" if request_id == "4" else "relu"
        assert f"{task} (small) {request_id} {status}" in result.stderr, result.stderr[-3000:]
    assert "4 candidates of 2 tasks: " in result.stderr, result.stderr[-3000:]
    assert records["inline-good"]["candidate"]["path"] == "request:inline-good"
    # The good candidate did not wait for the hang: it finished first.
    order = [json.loads(line)["request_id"] for line in result.stdout.splitlines()]
    assert order.index("inline-good") < order.index("hangs"), order


@pytest.mark.parametrize("args, message", [
    (["--task", "relu"], "give --task with --candidate(s), or --batch FILE"),
    (["--batch", "nowhere.jsonl"], "--batch nowhere.jsonl: cannot read the file"),
    # A candidate is what its module holds: --backend chooses among the suite's own kernels only.
    (["--task", "relu", "--candidates", str(CANDIDATES / "relu_good.py"), "--backend", "all"],
     "--backend all: a candidate is evaluated as what its module holds"),
])
def test_eval_refuses_what_is_not_a_batch_or_candidates(env, args, message):
    result = run_cli(env, "eval", *args, "--device", "cpu")
    assert result.returncode == 2 and message in result.stderr, result.stderr


def test_a_batch_naming_an_unknown_task_is_refused_before_any_evaluation(env, tmp_path):
    batch = tmp_path / "requests.jsonl"
    batch.write_text(json.dumps({"id": "x", "task": "no_such_task", "source": "def kernel(x): return x"}) + "\n")
    result = run_cli(env, "eval", "--batch", batch, "--device", "cpu", "--out", tmp_path / "out")
    assert result.returncode == 2, result.stderr
    assert "--batch line 1 (id x): unknown task 'no_such_task'" in result.stderr
    assert not (tmp_path / "out" / "records.jsonl").exists()


def test_a_batch_from_standard_input_is_checked_line_by_line(env):
    """`--batch -` reads the requests from standard input; a bad line there is refused by its
    number before any worker starts."""
    good = json.dumps({"id": "a", "task": "relu", "source": "def kernel(x): return x"})
    result = run_cli(env, "eval", "--batch", "-", "--device", "cpu", input=good + "\n{not json\n")
    assert result.returncode == 2 and "<stdin>:2: not a JSON line" in result.stderr, result.stderr


def test_each_request_may_name_its_dtype(env, tmp_path):
    """A request's dtype overrides --dtype for it alone: the same kernel evaluated at bfloat16
    and at the run's float16 gives records at each, with each dtype's tolerance."""
    batch = tmp_path / "requests.jsonl"
    good = str(CANDIDATES / "relu_good.py")
    lines = [{"id": "bf16", "task": "relu", "dtype": "bfloat16", "path": good},
             {"id": "default", "task": "relu", "path": good}]
    batch.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = run_cli(env, "eval", "--batch", batch, "--device", "cpu", "--no-timing", "--dtype", "float16",
                     "--jobs", "1", "--json", timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    records = {r["request_id"]: r for r in map(json.loads, result.stdout.splitlines())}
    assert records["bf16"]["dtype"] == "bfloat16" and records["bf16"]["config"]["dtype"] == "bfloat16"
    assert records["default"]["dtype"] == "float16" and records["default"]["config"]["dtype"] == "float16"
    assert records["bf16"]["tolerance"]["atol"] == 1e-2 and records["default"]["tolerance"]["atol"] == 2e-3
    assert all(r["status"] == "ok" and r["result"]["robustness_passed"] for r in records.values())
