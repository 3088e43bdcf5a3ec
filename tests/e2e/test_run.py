"""`pallasbench run` and `list` end to end on the CPU: records, summary, interruption and resume."""
import json
import signal
import subprocess
import time

import pytest

from e2e_support import BINARY, ROOT, phases_add_up, run_cli
from pallasbench import record_schema, records_compare

# Five cheap tasks: the first record lands while three or more are still to run (one in flight in
# each lane at most), so the interruption, the abandoned jobs and the resume all happen.
TASKS = ["relu", "add", "exp", "log", "tanh"]


def read_records(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_list_json(env):
    result = run_cli(env, "list", "--level", "1", "--json")
    assert result.returncode == 0, result.stderr
    tasks = {t["name"]: t for t in json.loads(result.stdout)}
    assert tasks["relu"]["sizes"]["large"] == "x(16384,16384)"
    assert all(t["level"] == 1 for t in tasks.values())


def test_list_markdown_is_the_task_docs_of_the_selection(env):
    # The binary hands the selection to pallasbench.tools.task_docs: the page of docs/tasks.md for
    # those tasks alone; a selection of no task is a usage error naming the categories.
    result = run_cli(env, "list", "--level", "3", "--category", "mlp", "--format", "markdown")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("# The task suite: 2 tasks (level 3, category mlp)\n")
    titles = [line for line in result.stdout.splitlines() if line.startswith("### ")]
    assert titles == ["### gated_mlp", "### mlp_block"]
    docs = (ROOT / "docs" / "tasks.md").read_text()
    section = result.stdout[result.stdout.index("### gated_mlp"):result.stdout.index("### mlp_block")]
    assert section in docs
    refused = run_cli(env, "list", "--category", "no_such", "--format", "markdown")
    assert refused.returncode == 2 and "categories: activation" in refused.stderr


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
        assert r["artifacts"]["jaxpr_dag"]["nodes"]
        # The analysed module holds the Pallas kernels of the implementation the run chose.
        assert r["trust"]["module_analysis"]["pallas_calls"] >= 1
        assert r["trust"]["module_analysis"]["backends"] == [r["backend"]] == [r["config"]["backend"]]
    assert "2 tasks: 2 ok" in result.stdout
    assert "[2/2]" in result.stdout


def test_existing_records_need_resume(env, tmp_path):
    (tmp_path / "records.jsonl").write_text("")
    result = run_cli(env, "run", "relu", "--device", "cpu", "--out", tmp_path)
    assert result.returncode == 2
    assert "--resume" in result.stderr


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_interrupted_run_resumes_without_loss_or_duplicates(env, tmp_path, jobs):
    """Ctrl-C after the first record: the jobs in flight are abandoned (in every lane), what was
    written stays, and --resume (in one lane) finishes the rest without a duplicate."""
    records = tmp_path / "records.jsonl"
    proc = subprocess.Popen([str(BINARY), "run", *TASKS, "--device", "cpu", "--no-timing", "--jobs", jobs,
                             "--out", str(tmp_path)],
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
    resumed = run_cli(env, "run", *TASKS, "--device", "cpu", "--no-timing", "--out", tmp_path, "--resume",
                      "--jobs", "1")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    final = read_records(records)
    names = [r["kernel_name"] for r in final]
    assert sorted(names) == sorted(TASKS)  # every task once: nothing lost, nothing duplicated
    assert final[:len(first)] == first  # finished records kept as they were
    assert f"{len(first)} task(s) were recorded before" in resumed.stdout


def test_report_shows_every_record_of_every_file(env, tmp_path):
    """A later record of a task and size hides no earlier one: both runs are rows (issue 39)."""
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    rec = {"kernel_name": "relu", "level": 1, "size": "small", "status": "incorrect",
           "result": {"max_abs_error": 1.0}, "timing": None, "error": {"message": "bad"}}
    first.write_text(json.dumps(rec) + "\n" + json.dumps({**rec, "kernel_name": "add"}) + "\n")
    second.write_text(json.dumps({**rec, "status": "ok", "error": None}) + "\n")
    result = run_cli(env, "report", first, second)
    assert result.returncode == 0, result.stderr
    assert "3 records of 2 tasks: 2 incorrect, 1 ok" in result.stdout
    rows = [line.split()[:3] for line in result.stdout.splitlines()[1:4]]
    assert rows == [["relu", "small", "incorrect"], ["add", "small", "incorrect"], ["relu", "small", "ok"]]
    broken = tmp_path / "broken.jsonl"
    broken.write_text("{not json\n")
    bad = run_cli(env, "report", broken)
    assert bad.returncode == 2 and "broken.jsonl:1: not a JSON record" in bad.stderr


EXPECTED_TASKS = {1: 38, 2: 23, 3: 8}


@pytest.fixture(scope="module")
def suite_two_lanes(env, tmp_path_factory):
    """`run --size small --device cpu`: the whole suite in one run (a run a level cost CI two more
    harness start-ups), in two lanes, with a given seed so that another run can be compared with it."""
    out = tmp_path_factory.mktemp("suite_jobs2")
    result = run_cli(env, "run", "--size", "small", "--device", "cpu", "--no-timing", "--jobs", "2", "--seed", "7",
                     "--out", out, timeout=1800)
    return result, read_records(out / "records.jsonl")


@pytest.mark.parametrize("level", [1, 2, 3])
def test_suite_level_passes_on_cpu(level, suite_two_lanes):
    """Every task of level N correct at SMALL in interpret mode (the whole suite's run, in two lanes)."""
    result, everything = suite_two_lanes
    records = [r for r in everything if r["level"] == level]
    failed = [(r["kernel_name"], r["status"], r.get("error", {}).get("message")) for r in records
              if r["status"] != "ok"]
    assert not failed, failed
    assert len(records) == EXPECTED_TASKS[level]
    assert len(everything) == sum(EXPECTED_TASKS.values())
    # Exit 0 exactly when every record of the run is ok (a failure of another level fails its own test).
    assert (result.returncode == 0) == all(r["status"] == "ok" for r in everything), result.stdout[-3000:]
    # Tasks with a shipped table (tuned at MEDIUM/LARGE) say so, with SMALL's values: none, the
    # kernel's heuristic, but a pinned backend (a task with one function on two backends); the
    # others carry no kernel_config.
    tuned = {r["kernel_name"]: r["kernel_config"] for r in records if "kernel_config" in r}
    # The preferred implementation on the CPU: Mosaic GPU where the task has one it interprets
    # (these ship no table), else Triton (matmul's and gather's Mosaic ones are GPU-only).
    expected = {1: {"matmul", "gather"}, 2: {"matmul_relu", "geglu", "linear_bias_relu"},
                3: {"transformer_block", "mlp_block", "gated_mlp"}}[level]
    assert expected <= set(tuned), sorted(tuned)
    assert {r["kernel_name"]: r["backend"] for r in records if r["kernel_name"] in expected} == dict.fromkeys(
        expected, "triton")
    assert all(c["gpu"] == "NVIDIA H200" and all(v["key"] == "backend" for v in c["values"])
               for c in tuned.values()), tuned


def test_one_lane_and_two_give_the_same_records(env, tmp_path, suite_two_lanes):
    """`run --size small --jobs 2` and `--jobs 1` (one seed): the same records bar times, ids and
    placement, in the same order. The one-lane run takes every fourth task of level 1 (each
    evaluation draws from the seed alone, so a subset compares task by task; the whole level again
    cost CI a minute), named in reverse: records still come in the suite's order."""
    two_result, two = suite_two_lanes
    level1 = [r["kernel_name"] for r in two if r["level"] == 1]
    subset = level1[::4]
    result = run_cli(env, "run", *reversed(subset), "--size", "small", "--device", "cpu", "--no-timing",
                     "--jobs", "1", "--seed", "7", "--out", tmp_path, timeout=1800)
    one_result, one = result, read_records(tmp_path / "records.jsonl")
    assert one_result.returncode == two_result.returncode == 0, one_result.stdout[-2000:]
    assert "1 lane(s)" in one_result.stdout and "2 lane(s)" in two_result.stdout
    # Both in the suite's order, the two-lane run's completion order and the naming notwithstanding.
    assert len(level1) == EXPECTED_TASKS[1] and level1 == sorted(level1)
    # Same order, same verdicts, same numbers: only ids, clocks and placement differ.
    assert len(subset) >= 8 and [r["kernel_name"] for r in one] == subset
    by_name = {r["kernel_name"]: r for r in two}
    for a in one:
        assert records_compare.differences(a, by_name[a["kernel_name"]]) == ([], []), a["kernel_name"]
    assert {r["placement"]["lane"] for r in two} == {0, 1}
    assert all(r["placement"]["lanes"] == 2 for r in two)
    # Each record's phases partition its evaluation's wall time; the run prints their totals.
    schema = record_schema.load()
    for record in one + two:
        assert record_schema.check(record, schema) == [], record["kernel_name"]
        assert phases_add_up(record), record["phases"]
        assert record["phases"]["reference_s"] > 0 and record["phases"]["trace_s"] > 0
    for result, count in ((one_result, len(subset)), (two_result, len(two))):
        assert f"where the time went ({count} task(s) evaluated): artifacts" in result.stdout, \
            result.stdout[-1500:]


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
