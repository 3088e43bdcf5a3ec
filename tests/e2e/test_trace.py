"""`run --trace FILE` end to end: the run's timeline in Chrome trace events, whose spans are the
very segments the records' phases add up (src/orchestrate/run_trace.cpp)."""
import collections
import json

from e2e_support import run_cli

TASKS = ("relu", "softmax", "matmul")
SETUP = ["start the reference, describe the tasks", "describe the device (ceilings)", "start the lanes' workers",
         "evaluate"]


def label(record):
    """How the run names an evaluation beside its task: the size, and Mosaic GPU where it ran."""
    return "small/mosaic_gpu" if record["config"]["backend"] == "mosaic_gpu" else "small"


def test_the_timeline_holds_each_evaluation_and_its_phases(env, tmp_path):
    trace_file = tmp_path / "trace.json"
    proc = run_cli(env, "run", *TASKS, "--size", "small", "--device", "cpu", "--jobs", "2", "--timing-budget", "0.2",
                   "--out", tmp_path / "run", "--trace", trace_file)
    assert proc.returncode == 0, proc.stderr
    events = json.loads(trace_file.read_text())["traceEvents"]
    records = [json.loads(line) for line in (tmp_path / "run" / "records.jsonl").read_text().splitlines()]
    tracks = {e["tid"]: e["args"]["name"] for e in events if e["ph"] == "M"}
    assert tracks == {0: "harness", 1: "lane 0 (device 0)", 2: "lane 1 (device 0)"}
    spans = [e for e in events if e["ph"] == "X"]
    assert all(e["dur"] >= 0 and e["ts"] >= 0 for e in spans)

    # The harness's steps, in order and one after another.
    setup = [e for e in spans if e["tid"] == 0]
    assert [e["name"] for e in setup] == SETUP
    for before, after in zip(setup, setup[1:]):
        assert before["ts"] + before["dur"] <= after["ts"] + 1

    evaluations = {e["name"]: e for e in spans if e["cat"] == "evaluation"}
    labels = {r["kernel_name"]: label(r) for r in records}
    assert set(evaluations) == {f"{t} ({labels[t]})" for t in TASKS}
    assert {e["tid"] for e in evaluations.values()} == {1, 2}  # both lanes worked
    run_span = setup[-1]
    for record in records:
        evaluation = evaluations[f"{record['kernel_name']} ({label(record)})"]
        assert evaluation["args"] == {"status": record["status"], "uuid": record["uuid"]}
        assert run_span["ts"] <= evaluation["ts"] and evaluation["ts"] + evaluation["dur"] <= run_span["ts"] + run_span["dur"] + 1
        phases = sorted((e for e in spans if e["cat"] == "phase" and e["args"]["task"] == evaluation["name"]),
                        key=lambda e: e["ts"])
        # The phases tile the evaluation: inside it, on its lane, never overlapping.
        assert phases and all(p["tid"] == evaluation["tid"] for p in phases)
        assert phases[0]["ts"] >= evaluation["ts"] - 1
        assert phases[-1]["ts"] + phases[-1]["dur"] <= evaluation["ts"] + evaluation["dur"] + 1
        for before, after in zip(phases, phases[1:]):
            assert before["ts"] + before["dur"] <= after["ts"] + 1
        # ...and add up, phase by phase, to the record's totals.
        totals = collections.Counter()
        for p in phases:
            totals[p["name"] + "_s"] += p["dur"] / 1e6
        for name, seconds in record["phases"].items():
            if name != "wall_s":
                assert abs(totals[name] - seconds) < 1e-3, (record["kernel_name"], name, totals[name], seconds)
        assert {"reference", "trace", "compile", "checks", "timing"} <= {p["name"] for p in phases}


def test_an_unwritable_trace_is_refused_before_the_run(env, tmp_path):
    proc = run_cli(env, "run", "relu", "--size", "small", "--device", "cpu", "--out", tmp_path / "run",
                   "--trace", tmp_path / "missing" / "trace.json")
    assert proc.returncode == 2
    assert "--trace" in proc.stderr and "missing/trace.json" in proc.stderr
    assert not (tmp_path / "run" / "records.jsonl").exists()
