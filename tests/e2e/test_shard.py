"""`run --shard I/N` and `merge` end to end on the CPU: the shards of a run, merged, say what the
unsharded run says, in its order, and resume it; conflicts and missing shards are told."""
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from e2e_support import BINARY, CANDIDATES, ROOT, run_cli

sys.path.insert(0, str(ROOT / "python"))
from pallasbench import record_schema  # noqa: E402
from pallasbench.records_compare import differences  # noqa: E402

TASKS = ["relu", "add", "exp", "tanh", "sigmoid"]  # each outputs float32
FLAGS = ["--size", "small", "--device", "cpu", "--no-timing", "--seed", "7"]
N = 3
EVAL_CANDIDATES = ["relu_good.py", "relu_prints.py", "relu_latin1.py"]


def shard_of(task, candidate_file, count, size="small", dtype="float32", backend=None):
    """docs/cluster.md's rule, written again: FNV-1a 64 (the project's offset basis) of the work
    item's canonical JSON, its high 32 bits scaled to 0..count-1; 1-based. A suite task's item
    names its implementation (`backend`); a candidate's does not."""
    sha = hashlib.sha256(candidate_file.read_bytes()).hexdigest()
    item = {"candidate_sha256": sha, "dtype": dtype, "size": size, "task": task}
    if backend is not None:
        item["backend"] = backend
    text = json.dumps(item, sort_keys=True, separators=(",", ":"))
    h = 1469598103934665603
    for byte in text.encode():
        h = ((h ^ byte) * 1099511628211) % 2**64
    return ((h >> 32) * count >> 32) + 1


def lines_of(path):
    return path.read_text().splitlines() if path.exists() else []


def records_of(path):
    return [json.loads(line) for line in lines_of(path)]


@pytest.fixture(scope="module")
def runs(env, tmp_path_factory):
    """The unsharded run and its N shards, started together (each mostly waits for JAX to start)."""
    base = tmp_path_factory.mktemp("shards")
    jobs = {"all": ["run", *TASKS]} | {f"shard-{i}": ["run", *TASKS, "--shard", f"{i}/{N}"] for i in range(1, N + 1)}
    # eval spreads candidates: each falls to a shard by its own hash.
    candidates = [a for c in EVAL_CANDIDATES for a in ("--candidate", str(CANDIDATES / c))]
    jobs["eval"] = ["eval", "--task", "relu", *candidates, "--shard", "1/2"]
    procs = {name: subprocess.Popen([str(BINARY), *args, *FLAGS, "--out", str(base / name)], env=env, cwd=ROOT,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for name, args in jobs.items()}
    done = {name: (p.communicate(timeout=300), p.returncode) for name, p in procs.items()}
    for name, ((out, err), code) in done.items():
        assert code in ((0, 1) if name == "eval" else (0,)), f"{name}: {out}{err}"  # eval: a candidate may fail
    return base, {name: err for name, ((_, err), _) in done.items()}


def shard_dirs(base):
    return [base / f"shard-{i}" for i in range(1, N + 1)]


def test_each_shard_runs_its_share(runs):
    base, stderr = runs
    unsharded = {r["kernel_name"]: r for r in records_of(base / "all" / "records.jsonl")}
    seen = []
    schema = record_schema.load()
    for i, folder in enumerate(shard_dirs(base), 1):
        records = records_of(folder / "records.jsonl")
        assert f"shard {i}/{N}: {len(records)} of the {len(TASKS)} selected evaluation(s)" in stderr[folder.name]
        if not records:  # a shard that got no work succeeds and writes no records file
            assert not (folder / "records.jsonl").exists()
        for r in records:
            assert r["shard"] == {"index": i, "count": N}
            assert shard_of(r["kernel_name"], ROOT / r["candidate"]["path"], N, backend=r["config"]["backend"]) == i
            assert r["config_hash"] == unsharded[r["kernel_name"]]["config_hash"]  # not part of the key
            assert record_schema.check(r, schema) == []
            seen.append(r["kernel_name"])
    assert sorted(seen) == sorted(TASKS)  # every task in exactly one shard
    assert all("shard" not in r for r in unsharded.values())


def test_eval_shards_each_candidate_by_its_hash(runs):
    base, stderr = runs
    expected = [c for c in EVAL_CANDIDATES if shard_of("relu", CANDIDATES / c, 2) == 1]
    records = records_of(base / "eval" / "records.jsonl")
    assert sorted(Path(r["candidate"]["path"]).name for r in records) == sorted(expected)
    assert all(r["shard"] == {"index": 1, "count": 2} for r in records)
    assert f"shard 1/2: {len(expected)} of the {len(EVAL_CANDIDATES)} selected evaluation(s)" in stderr["eval"]


def test_merged_shards_equal_the_unsharded_run_and_resume_it(env, runs, tmp_path):
    base, _ = runs
    merged = run_cli(env, "merge", tmp_path / "merged", *shard_dirs(base))
    assert merged.returncode == 0, merged.stderr
    assert f"merged {len(TASKS)} record(s) from {N} input(s)" in merged.stdout
    empty = [i for i, d in enumerate(shard_dirs(base), 1) if not (d / "records.jsonl").exists()]
    assert ("missing" in merged.stderr) == bool(empty), merged.stderr  # only shards with no record are told
    before = records_of(base / "all" / "records.jsonl")
    after = records_of(tmp_path / "merged" / "records.jsonl")
    assert [r["kernel_name"] for r in after] == [r["kernel_name"] for r in before]  # the unsharded run's order
    for b, a in zip(before, after):
        assert differences(b, a) == ([], []), b["kernel_name"]
    # The merged file resumes the unsharded run: nothing is evaluated again.
    resumed = run_cli(env, "run", *TASKS, *FLAGS, "--resume", "--out", tmp_path / "merged")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert f"{len(TASKS)} task(s) were recorded before" in resumed.stdout
    assert records_of(tmp_path / "merged" / "records.jsonl") == after


def test_a_task_evaluated_twice_is_a_conflict(env, runs, tmp_path):
    base, _ = runs
    result = run_cli(env, "merge", tmp_path / "out", base / "all", *shard_dirs(base))
    assert result.returncode == 2, result.stdout + result.stderr
    assert "conflicting records of task '" in result.stderr
    assert str(base / "all" / "records.jsonl") + ":" in result.stderr  # both file:line named
    assert str(base / "shard-") in result.stderr
    assert not (tmp_path / "out" / "records.jsonl").exists()


def test_a_missing_shard_is_warned_about(env, runs, tmp_path):
    base, _ = runs
    with_records = [d for d in shard_dirs(base) if (d / "records.jsonl").exists()]
    left_out = with_records[-1]
    index = int(left_out.name.split("-")[1])
    rest = [d for d in shard_dirs(base) if d != left_out]
    result = run_cli(env, "merge", tmp_path / "out", *rest)
    assert result.returncode == 0, result.stderr
    if any((d / "records.jsonl").exists() for d in rest):  # else nothing names a shard count
        missing = re.search(r"merged; (.*) missing", result.stderr)
        assert missing and f"{index}/{N}" in missing.group(1), result.stderr
    merged = records_of(tmp_path / "out" / "records.jsonl")
    assert len(merged) == len(TASKS) - len(records_of(left_out / "records.jsonl"))


def test_a_shard_with_no_work_succeeds_and_merges(env, runs, tmp_path):
    base, _ = runs
    empty = next((d for d in shard_dirs(base) if not (d / "records.jsonl").exists()), None)
    if empty is None:  # every shard got work: make one that gets none
        relu_shard = next(r["shard"]["index"] for d in shard_dirs(base) for r in records_of(d / "records.jsonl")
                          if r["kernel_name"] == "relu")
        empty = tmp_path / "empty"
        result = run_cli(env, "run", "relu", *FLAGS, "--shard", f"{relu_shard % N + 1}/{N}", "--out", empty)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "0 of the 1 selected evaluation(s) (nothing to do here" in result.stderr
        assert not (empty / "records.jsonl").exists()
    result = run_cli(env, "merge", tmp_path / "out", empty)
    assert result.returncode == 0, result.stderr
    assert "merged 0 record(s)" in result.stdout
    assert "no records.jsonl" in result.stderr
    assert not (tmp_path / "out" / "records.jsonl").exists()


def test_bad_shard_and_an_output_holding_records_are_usage_errors(env, runs, tmp_path):
    base, _ = runs
    bad = run_cli(env, "run", "relu", "--shard", "4/3", "--device", "cpu", "--out", tmp_path / "bad")
    assert bad.returncode == 2
    assert "--shard 4/3: the index must be in 1..3" in bad.stderr
    occupied = run_cli(env, "merge", base / "all", *shard_dirs(base))
    assert occupied.returncode == 2
    assert "exists and holds records" in occupied.stderr


@pytest.mark.parametrize("script", ["suite_array.sbatch", "merge.sbatch"])
def test_cluster_scripts_are_bash_and_use_only_real_flags(env, script):
    path = ROOT / "bench" / "cluster" / script
    syntax = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True)
    assert syntax.returncode == 0, syntax.stderr
    calls = [line for line in path.read_text().splitlines() if line.lstrip().startswith("build/pallasbench ")]
    assert calls, "the script runs pallasbench"
    for line in calls:
        command = line.split()[1]
        help_text = run_cli(env, command, "--help").stdout
        for flag in re.findall(r"(?<![\w-])--[a-z][a-z-]*", line):
            assert flag in help_text, f"{script}: `pallasbench {command}` has no {flag}"
