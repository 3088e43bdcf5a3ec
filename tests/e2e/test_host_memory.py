"""`run --host-memory GIB`: the lanes keep the evaluations in flight within a host-memory budget
(src/orchestrate/job_board.cpp), seen in the run's timeline (--trace): with the default budget two
lanes evaluate at once; with one smaller than any evaluation's estimate they take turns."""
import itertools
import json

from e2e_support import run_cli

TASKS = ("relu", "softmax", "add", "exp")


def evaluations(env, tmp_path, name, *flags):
    trace_file = tmp_path / f"{name}.json"
    proc = run_cli(env, "run", *TASKS, "--size", "small", "--device", "cpu", "--no-timing", "--jobs", "2",
                   "--out", tmp_path / name, "--trace", trace_file, *flags)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    events = json.loads(trace_file.read_text())["traceEvents"]
    spans = [e for e in events if e["ph"] == "X" and e["cat"] == "evaluation"]
    assert len(spans) == len(TASKS)
    return spans


def overlap(spans) -> bool:
    return any(a["ts"] < b["ts"] + b["dur"] and b["ts"] < a["ts"] + a["dur"]
               for a, b in itertools.combinations(spans, 2))


def test_a_budget_below_every_evaluation_runs_them_one_at_a_time(env, tmp_path):
    default = evaluations(env, tmp_path, "default")
    assert overlap(default) and {e["tid"] for e in default} == {1, 2}
    # 1 KiB: every task's estimate (8 bytes a byte of its SMALL byte model) is larger, so each runs alone.
    tight = evaluations(env, tmp_path, "tight", "--host-memory", str(1 / (1 << 20)))
    assert not overlap(tight)


def test_a_negative_budget_is_refused(env, tmp_path):
    proc = run_cli(env, "run", "relu", "--size", "small", "--device", "cpu", "--out", tmp_path,
                   "--host-memory", "-1")
    assert proc.returncode != 0 and "host-memory" in (proc.stdout + proc.stderr)
