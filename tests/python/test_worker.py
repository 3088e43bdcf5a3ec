"""The worker's side of the protocol, spoken directly over pipes."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


class Worker:
    def __init__(self):
        env = {**os.environ, "PYTHONPATH": str(ROOT / "python"), "JAX_PLATFORMS": "cpu"}
        self.proc = subprocess.Popen([sys.executable, "-m", "pallasbench.worker"], env=env, text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.hello = json.loads(self.proc.stdout.readline())
        self.next_id = 1

    def call(self, **request):
        request["id"] = self.next_id
        self.next_id += 1
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        reply = json.loads(self.proc.stdout.readline())
        assert reply["id"] == request["id"]
        return reply

    def close(self):
        self.call(cmd="shutdown")
        self.proc.wait(timeout=30)


@pytest.fixture(scope="module")
def worker():
    w = Worker()
    yield w
    w.close()


def test_greeting_reports_environment(worker):
    assert worker.hello["ready"] is True
    env = worker.hello["environment"]
    assert env["backend"] == "cpu" and env["jax"] and env["jaxlib"]


def test_describe_and_reference(worker, tmp_path):
    described = worker.call(cmd="describe", tasks=["relu"])
    assert described["ok"] and described["tasks"][0]["name"] == "relu"
    assert len(described["tasks"][0]["sha256"]) == 64
    reply = worker.call(cmd="reference", task="relu", size="small", seed=4, dir=str(tmp_path))
    assert reply["ok"], reply
    x = np.load(reply["inputs"][0]["path"])
    ref = np.load(reply["output"]["path"])
    np.testing.assert_array_equal(ref, np.maximum(x, 0))
    again = worker.call(cmd="reference", task="relu", size="small", seed=4, dir=str(tmp_path / ".."))
    np.testing.assert_array_equal(np.load(again["inputs"][0]["path"]), x)  # seeds are reproducible


def test_load_run_and_determinism(worker, tmp_path):
    ref = worker.call(cmd="reference", task="add", size="small", seed=0, dir=str(tmp_path))
    specs = [{"shape": i["shape"], "dtype": i["dtype"]} for i in ref["inputs"]]
    loaded = worker.call(cmd="load", candidate={"task": "add"}, task_name="add", inputs=specs)
    assert loaded["ok"], loaded
    assert "pallas_call" in loaded["jaxpr"] and loaded["compile_s"] > 0
    assert loaded["pallas_calls"][0]["grid"]
    outs = [str(tmp_path / "a.npy"), str(tmp_path / "b.npy")]
    ran = worker.call(cmd="run", inputs=[i["path"] for i in ref["inputs"]], outputs=outs)
    assert ran["ok"], ran
    np.testing.assert_array_equal(np.load(outs[0]), np.load(ref["output"]["path"]))


def test_errors_are_replies_not_crashes(worker):
    unknown = worker.call(cmd="frobnicate")
    assert not unknown["ok"] and unknown["error"]["kind"] == "usage_error"
    missing = worker.call(cmd="reference", task="no_such_task", size="small", seed=0, dir="/tmp")
    assert not missing["ok"] and "unknown task 'no_such_task'" in missing["error"]["message"]
    early = Worker()
    try:
        reply = early.call(cmd="run", inputs=[], outputs=[])
        assert not reply["ok"] and "run before load" in reply["error"]["message"]
    finally:
        early.close()


def test_cpu_timing_is_wall_clock_and_artifacts_say_why_not(worker, tmp_path):
    ref = worker.call(cmd="reference", task="relu", size="small", seed=0, dir=str(tmp_path))
    specs = [{"shape": i["shape"], "dtype": i["dtype"]} for i in ref["inputs"]]
    loaded = worker.call(cmd="load", candidate={"task": "relu"}, task_name="relu", inputs=specs,
                         artifacts={"mode": "files", "dir": str(tmp_path / "compiler")})
    assert loaded["ok"], loaded
    assert loaded["artifacts"] == {"mode": "files", "artifacts_unavailable": "cpu interpret mode"}
    timed = worker.call(cmd="time", inputs=[i["path"] for i in ref["inputs"]], warmup=1,
                        min_samples=3, max_samples=3, min_seconds=0, max_seconds=5)
    assert timed["ok"], timed
    assert timed["timer"] == "wall" and "timer_error" not in timed
    assert len(timed["samples_us"]) == 3 and min(timed["samples_us"]) > 0
    device = worker.call(cmd="device")
    assert device["ok"] and device["timer"] == "wall" and device["timer_error"] is None


def test_artifacts_none_captures_nothing(worker, tmp_path):
    ref = worker.call(cmd="reference", task="relu", size="small", seed=0, dir=str(tmp_path))
    specs = [{"shape": i["shape"], "dtype": i["dtype"]} for i in ref["inputs"]]
    loaded = worker.call(cmd="load", candidate={"task": "relu"}, task_name="relu", inputs=specs,
                         artifacts={"mode": "none"})
    assert loaded["ok"] and loaded["artifacts"] == {"mode": "none"}
