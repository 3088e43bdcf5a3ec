"""`pallasbench compare BASE NEW` on records derived from real GPU records (no workers start)."""
import copy
import json
from pathlib import Path

from e2e_support import run_cli

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "records" / "gpu_ok.jsonl"


def base_records():
    return {r["kernel_name"]: r for r in map(json.loads, FIXTURE.read_text().splitlines())}


def write(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def retimed(record, factor):
    """The record with its median and CI95 scaled by `factor` (a kernel that got faster or slower)."""
    r = copy.deepcopy(record)
    r["timing"]["median_us"] *= factor
    r["timing"]["ci95_us"] = [v * factor for v in r["timing"]["ci95_us"]]
    return r


def test_faster_and_same_exit_0(env, tmp_path):
    base = base_records()
    a = write(tmp_path / "a.jsonl", base.values())
    new = [retimed(base["embedding_lookup"], 0.5), base["one_hot"], retimed(base["relu"], 1.01)]
    run_dir = tmp_path / "run_b"
    run_dir.mkdir()
    write(run_dir / "records.jsonl", new)  # a run folder stands for its records.jsonl

    proc = run_cli(env, "compare", a, run_dir, timeout=30)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "| task | size | base median | new median | change | verdict | note |"
    embedding = next(line for line in lines if line.startswith("| embedding_lookup |"))
    assert "| -50.00% | FASTER |" in embedding
    assert "FASTER: 1" in lines and "SAME: 2" in lines

    proc = run_cli(env, "compare", a, run_dir, "--json", timeout=30)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    verdicts = {row["task"]: row["verdict"] for row in result["rows"]}
    assert verdicts == {"embedding_lookup": "FASTER", "one_hot": "SAME", "relu": "SAME"}
    assert result["counts"]["FASTER"] == 1 and result["counts"]["SLOWER"] == 0
    # The key's dtype comes from the kernel's traced output (artifacts.jaxpr_dag).
    assert {row["dtype"] for row in result["rows"]} == {"float32"}

    # A threshold above the change makes it SAME.
    proc = run_cli(env, "compare", a, run_dir, "--json", "--threshold", "0.6", timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["counts"]["SAME"] == 3


def test_slower_broke_added_removed_exit_1(env, tmp_path):
    base = base_records()
    a = write(tmp_path / "a.jsonl", [base["embedding_lookup"], base["one_hot"], base["relu"]])
    broken = copy.deepcopy(base["one_hot"])
    broken["status"] = "incorrect"
    broken["result"]["robustness_passed"] = False
    broken["timing"] = None
    other = copy.deepcopy(base["relu"])
    other["candidate"]["sha256"] = "0" * 64  # another candidate: a row of its own
    b = write(tmp_path / "b.jsonl", [retimed(base["embedding_lookup"], 1.2), broken, other])

    proc = run_cli(env, "compare", a, b, "--json", timeout=30)
    assert proc.returncode == 1, proc.stderr
    rows = json.loads(proc.stdout)["rows"]
    assert [(r["task"], r["verdict"]) for r in rows] == [
        ("embedding_lookup", "SLOWER"), ("one_hot", "BROKE"), ("relu", "REMOVED"), ("relu", "ADDED")]
    assert rows[1]["note"] == "status ok -> incorrect; robust yes -> no"
    assert abs(rows[0]["change"] - 0.2) < 1e-9

    proc = run_cli(env, "compare", a, b, timeout=30)
    assert proc.returncode == 1
    assert "| one_hot | small | 1.312 us | - | - | BROKE |" in proc.stdout

    # The other way round: FASTER and FIXED, nothing to gate on.
    proc = run_cli(env, "compare", b, a, "--json", timeout=30)
    assert proc.returncode == 0, proc.stdout
    assert [r["verdict"] for r in json.loads(proc.stdout)["rows"]] == ["FASTER", "FIXED", "REMOVED", "ADDED"]


def test_usage_errors_exit_2(env, tmp_path):
    a = write(tmp_path / "a.jsonl", base_records().values())
    proc = run_cli(env, "compare", a, tmp_path / "missing.jsonl", timeout=30)
    assert proc.returncode == 2
    assert "missing.jsonl" in proc.stderr

    proc = run_cli(env, "compare", a, tmp_path, timeout=30)  # a folder without records.jsonl
    assert proc.returncode == 2
    assert "records.jsonl" in proc.stderr

    corrupt = tmp_path / "corrupt.jsonl"
    corrupt.write_text(a.read_text() + "not json\n")
    proc = run_cli(env, "compare", a, corrupt, timeout=30)
    assert proc.returncode == 2
    assert f"{corrupt}:4" in proc.stderr

    proc = run_cli(env, "compare", a, timeout=30)  # NEW is required
    assert proc.returncode == 2
