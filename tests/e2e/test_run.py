"""`pallasbench run` and `list` end to end on the CPU: records, summary, interruption and resume."""
import json
import signal
import subprocess
import time

import pytest

from e2e_support import BINARY, ROOT, run_cli

TASKS = ["relu", "add", "exp", "log", "tanh", "sigmoid", "multiply", "maximum", "clamp", "elu"]


def read_records(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_list_json(env):
    result = run_cli(env, "list", "--level", "1", "--json")
    assert result.returncode == 0, result.stderr
    tasks = {t["name"]: t for t in json.loads(result.stdout)}
    assert tasks["relu"]["sizes"]["large"] == "x(16384,16384)"
    assert all(t["level"] == 1 for t in tasks.values())


def test_run_writes_records_and_summary(env, tmp_path):
    result = run_cli(env, "run", "relu", "softmax", "--device", "cpu", "--out", tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    records = read_records(tmp_path / "records.jsonl")
    assert sorted(r["kernel_name"] for r in records) == ["relu", "softmax"]
    for r in records:
        assert r["status"] == "ok"
        assert r["timing"]["timer"] == "wall" and r["timing"]["median_us"] > 0
        assert r["compile"]["lower_s"] > 0 and r["compile"]["compile_s"] > 0
        assert r["environment"]["jax"] and r["environment"]["backend"] == "cpu"
        assert r["stablehlo"].startswith("module")
        assert any(n["primitive"] == "pallas_call" for n in r["artifacts"]["jaxpr_dag"]["nodes"])
    assert "2 tasks: 2 ok" in result.stdout
    assert "[2/2]" in result.stdout


def test_existing_records_need_resume(env, tmp_path):
    (tmp_path / "records.jsonl").write_text("")
    result = run_cli(env, "run", "relu", "--device", "cpu", "--out", tmp_path)
    assert result.returncode == 2
    assert "--resume" in result.stderr


def test_interrupted_run_resumes_without_loss_or_duplicates(env, tmp_path):
    records = tmp_path / "records.jsonl"
    proc = subprocess.Popen([str(BINARY), "run", *TASKS, "--device", "cpu", "--no-timing", "--out", str(tmp_path)],
                            env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and not (records.exists() and records.read_text().count("\n") >= 1):
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=120)
    first = read_records(records)
    assert 1 <= len(first) <= len(TASKS)
    if len(first) < len(TASKS):
        assert proc.returncode == 130, out
        assert "rerun with --resume" in out
    resumed = run_cli(env, "run", *TASKS, "--device", "cpu", "--no-timing", "--out", tmp_path, "--resume")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    final = read_records(records)
    names = [r["kernel_name"] for r in final]
    assert sorted(names) == sorted(TASKS)  # every task once: nothing lost, nothing duplicated
    assert final[:len(first)] == first  # finished records kept as they were
    assert f"{len(first)} task(s) were recorded before" in resumed.stdout


def test_report_merges_files_later_wins(env, tmp_path):
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    rec = {"kernel_name": "relu", "level": 1, "size": "small", "status": "incorrect",
           "result": {"max_abs_error": 1.0}, "timing": None, "error": {"message": "bad"}}
    first.write_text(json.dumps(rec) + "\n" + json.dumps({**rec, "kernel_name": "add"}) + "\n")
    second.write_text(json.dumps({**rec, "status": "ok", "error": None}) + "\n")
    result = run_cli(env, "report", first, second)
    assert result.returncode == 0, result.stderr
    assert "2 tasks: 1 incorrect, 1 ok" in result.stdout
    broken = tmp_path / "broken.jsonl"
    broken.write_text("{not json\n")
    bad = run_cli(env, "report", broken)
    assert bad.returncode == 2 and "broken.jsonl:1: not a JSON record" in bad.stderr


EXPECTED_TASKS = {1: 38, 2: 23, 3: 8}


@pytest.mark.parametrize("level", [1, 2, 3])
def test_suite_level_passes_on_cpu(env, tmp_path, level):
    """`run --level N --size small --device cpu`: every task of the level correct in interpret mode."""
    result = run_cli(env, "run", "--level", level, "--size", "small", "--device", "cpu", "--no-timing",
                     "--out", tmp_path, timeout=1800)
    records = read_records(tmp_path / "records.jsonl")
    failed = [(r["kernel_name"], r["status"], r.get("error", {}).get("message")) for r in records
              if r["status"] != "ok"]
    assert not failed, failed
    assert len(records) == EXPECTED_TASKS[level]
    assert result.returncode == 0, result.stdout[-3000:]


def test_artifacts_graph_and_dot(env, tmp_path):
    result = run_cli(env, "artifacts", "softmax", "--device", "cpu")
    assert result.returncode == 0, result.stderr
    dag = json.loads(result.stdout)
    kernels = [n for n in dag["nodes"] if n["primitive"] == "pallas_call"]
    assert kernels and kernels[0]["grid"] == [8] and kernels[0]["block_shapes"] == [[32, 256], [32, 256]]
    body = [n for n in dag["nodes"] if n["parent"] == kernels[0]["id"]]
    assert body and all(n["inside_pallas"] for n in body)
    assert any(e["to"] == kernels[0]["id"] for e in dag["edges"])
    dot_file = tmp_path / "softmax.dot"
    drawn = run_cli(env, "artifacts", "softmax", "--device", "cpu", "--dot", dot_file)
    assert drawn.returncode == 0, drawn.stderr
    dot = dot_file.read_text()
    assert dot.startswith("digraph jaxpr {") and f"subgraph cluster_{kernels[0]['id']}" in dot
    unknown = run_cli(env, "artifacts", "nope", "--device", "cpu")
    assert unknown.returncode == 2 and "unknown task nope" in unknown.stderr
