"""`pallasbench eval` end to end on the CPU: every failure path ends in a status and an exit code."""
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from e2e_support import BINARY, CANDIDATES, ROOT, run_cli


def evaluate(env, candidate, *extra, timeout=300):
    result = run_cli(env, "eval", "--task", "relu", "--candidate", CANDIDATES / candidate, "--device", "cpu",
                     "--no-timing", "--json", *extra, timeout=timeout)
    record = json.loads(result.stdout) if result.stdout.strip() else None
    return result, record


def test_honest_candidate_passes(env):
    result, record = evaluate(env, "relu_good.py")
    assert result.returncode == 0, result.stderr
    assert record["status"] == "ok"
    assert record["result"]["correctness_passed"] is True
    assert record["result"]["robustness_passed"] is True
    assert all(f["passed"] for f in record["result"]["filters"].values())
    assert len(set(record["seeds"])) == 3 and record["seed"]["source"] == "os_entropy"
    assert [s["seed"] for s in record["correctness"]["seeds"]] == record["seeds"]
    assert [s["case"] for s in record["correctness"]["stress"]] == ["tiny", "large"]
    assert all(s["deterministic"] for s in record["correctness"]["seeds"])
    assert "pallas_call" in record["jaxpr"]
    assert record["result"]["grid_shape"] == [64]
    assert record["candidate"]["kind"] == "user"


def test_hang_past_timeout(env):
    start = time.monotonic()
    result, record = evaluate(env, "relu_hangs.py", "--timeout", "5")
    assert result.returncode == 1
    assert record["status"] == "timeout"
    assert "did not answer within 5 s" in record["error"]["message"]
    assert time.monotonic() - start < 120


def tracers_of(parent: int) -> list[int]:
    """Host pids of the tracer processes the harness process `parent` started."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(next(line.split()[1] for line in status.splitlines() if line.startswith("PPid:")))
        if ppid == parent and b"pallasbench.worker.tracer" in cmdline:
            found.append(int(entry.name))
    return found


def test_tracer_killed_from_outside(env):
    """The candidate waits in its tracer; killing the tracer from outside is a crash of the
    candidate's, and the evaluation goes on to its record."""
    proc = subprocess.Popen([str(BINARY), "eval", "--task", "relu", "--candidate",
                             str(CANDIDATES / "relu_waits_to_be_killed.py"), "--device", "cpu", "--json"],
                            env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    tracers = []
    while not tracers and time.monotonic() < deadline:
        time.sleep(0.2)
        tracers = tracers_of(proc.pid)
    assert tracers, "no tracer started"
    time.sleep(8)  # past its start-up, into the candidate's sleep
    os.kill(tracers[0], signal.SIGKILL)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, err
    record = json.loads(out)
    assert record["status"] == "crashed"
    assert "SIGKILL" in record["error"]["message"]


def test_unknown_task_is_usage_error(env):
    result = run_cli(env, "eval", "--task", "no_such_task", "--candidate", CANDIDATES / "relu_good.py",
                     "--device", "cpu")
    assert result.returncode == 2
    assert "unknown task no_such_task" in result.stderr


def test_missing_candidate_is_usage_error(env):
    result = run_cli(env, "eval", "--task", "relu", "--candidate", "/nonexistent/cand.py")
    assert result.returncode == 2
    assert "candidate file not found: /nonexistent/cand.py" in result.stderr


def test_bad_flag_is_usage_error(env):
    result = run_cli(env, "eval", "--task", "relu", "--candidate", CANDIDATES / "relu_good.py", "--size", "huge")
    assert result.returncode == 2
    assert "huge" in result.stderr


@pytest.mark.parametrize("flag, value, says", [
    ("--seeds", "2", "from 3 to 1000 seeds"),
    ("--seeds", "2000000000", "from 3 to 1000 seeds"),
    ("--timeout", "nan", "a finite number of seconds, at least 0.1"),
    ("--timeout", "inf", "a finite number of seconds, at least 0.1"),
    ("--timeout", "1e-9", "a finite number of seconds, at least 0.1"),
    ("--max-noise", "nan", "between 0 and 1"),
    ("--max-noise", "1", "between 0 and 1"),
    ("--timing-budget", "inf", "finite, positive"),
])
def test_out_of_range_values_are_usage_errors(env, flag, value, says):
    """Refused before anything starts (exit 2, the flag and its limit named), never a harness
    error from deep inside a run."""
    result = run_cli(env, "eval", "--task", "relu", "--candidate", CANDIDATES / "relu_good.py", flag, value)
    assert result.returncode == 2, result.stderr
    assert f"{flag} " in result.stderr and says in result.stderr, result.stderr
