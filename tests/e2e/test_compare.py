"""`pallasbench compare BASE NEW` on records derived from real GPU records (no workers start), and one
`compare --task` run on the CPU."""
import copy
import json
from pathlib import Path

import pytest
from e2e_support import run_cli

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "records" / "gpu_ok.jsonl"
CPU_FIXTURE = FIXTURE.with_name("cpu_ok.jsonl")
CANDIDATES = Path(__file__).resolve().parent / "candidates"


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
    assert lines[0] == "| task | size | base median | new median | change | p | verdict | note |"
    embedding = next(line for line in lines if line.startswith("| embedding_lookup |"))
    assert "| -50.00% | - | FASTER |" in embedding
    assert "FASTER: 1" in lines and "SAME: 2" in lines
    assert any(line.startswith("one run a side: the verdicts rest on each run's own CI95") for line in lines)

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
    assert "| one_hot | small | 1.312 us | - | - | - | BROKE |" in proc.stdout

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


def runs(tmp_path, name, record, factors):
    """One records file per factor (a run of `record` retimed by it), comma-joined as a side."""
    return ",".join(str(write(tmp_path / f"{name}{i}.jsonl", [retimed(record, f)])) for i, f in enumerate(factors))


def test_repetitions_u_test_and_wall_clock(env, tmp_path):
    relu = base_records()["relu"]
    base = runs(tmp_path, "a", relu, [1.00, 1.01, 0.99, 1.02, 0.98])
    slower = runs(tmp_path, "b", relu, [1.20, 1.21, 1.19, 1.22, 1.18])
    proc = run_cli(env, "compare", base, slower, "--json", timeout=30)
    assert proc.returncode == 1, proc.stderr  # SLOWER
    (row,) = json.loads(proc.stdout)["rows"]
    assert row["verdict"] == "SLOWER"
    assert abs(row["p_value"] - 2 / 252) < 1e-12  # every slow run above every base run: the exact tail
    assert row["base"]["runs"] == 5 and len(row["new"]["samples_us"]) == 5
    assert abs(row["change"] - 0.2) < 1e-9  # medians of the runs' medians
    proc = run_cli(env, "compare", base, slower, timeout=30)
    assert "| +20.00% | 0.0079 | SLOWER |" in proc.stdout, proc.stdout
    assert "one run a side" not in proc.stdout

    # Run-to-run noise larger than the change: no verdict, exit 0, though each run's CI95 is tight.
    noisy = runs(tmp_path, "c", relu, [1.10, 0.92, 1.28, 0.99, 1.21])
    proc = run_cli(env, "compare", runs(tmp_path, "d", relu, [1.00, 1.30, 0.90, 1.25, 0.95]), noisy, "--json",
                   timeout=30)
    assert proc.returncode == 0, proc.stdout
    (row,) = json.loads(proc.stdout)["rows"]
    assert row["verdict"] == "AMBIGUOUS" and row["p_value"] > 0.05

    # --repetitions checks the count of runs each side gives.
    proc = run_cli(env, "compare", base, slower, "--repetitions", "4", timeout=30)
    assert proc.returncode == 2
    assert "--repetitions 4: BASE gives 5 run(s)" in proc.stderr

    # The CPU's wall clock: twice as slow, yet never FASTER/SLOWER.
    cpu = json.loads(CPU_FIXTURE.read_text().splitlines()[0])
    assert cpu["timing"]["timer"] == "wall"
    proc = run_cli(env, "compare", write(tmp_path / "w1.jsonl", [cpu]), write(tmp_path / "w2.jsonl", [retimed(cpu, 2)]),
                   timeout=30)
    assert proc.returncode == 0, proc.stdout
    assert "| +100.00% | - | WALL_CLOCK | wall clock, not compared |" in proc.stdout, proc.stdout


def test_task_mode_alternates_one_run(env, tmp_path):
    """compare --task relu CANDIDATE: the suite's kernel (BASE) and the candidate (NEW) evaluated in
    one run, A B B A; untimed here (--no-timing: the CPU's clock is never compared anyway)."""
    out = tmp_path / "out"
    proc = run_cli(env, "compare", "--task", "relu", CANDIDATES / "relu_good.py", "--repetitions", "2",
                   "--device", "cpu", "--no-timing", "--out", out, "--json")
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    assert [Path(r["candidate"]["path"]).name for r in records] == ["relu.py", "relu_good.py", "relu_good.py",
                                                                   "relu.py"]
    (row,) = json.loads(proc.stdout)["rows"]  # both files are one row: the join ignores their hashes
    assert row["task"] == "relu" and row["verdict"] == "NO_TIMING"
    assert row["base"]["runs"] == 2 and row["new"]["runs"] == 2
    assert "2 evaluation(s) each, alternating" in proc.stderr


def test_python_api_compare(env, tmp_path, monkeypatch):
    """pallasbench.compare: lists are a side's repetitions; the binary's refusal comes back whole."""
    import pallasbench

    monkeypatch.setenv("PALLASBENCH_PYTHON", env["PALLASBENCH_PYTHON"])
    relu = base_records()["relu"]
    base = runs(tmp_path, "a", relu, [1.00, 1.01, 0.99]).split(",")
    new = runs(tmp_path, "b", relu, [1.30, 1.31, 1.29]).split(",")
    result = pallasbench.compare(base, new, alpha=0.2)  # 3 a side: p = 0.1 at best
    (row,) = result["rows"]
    assert row["verdict"] == "SLOWER" and abs(row["p_value"] - 0.1) < 1e-12
    assert result["counts"]["SLOWER"] == 1
    assert pallasbench.compare(base, new)["rows"][0]["verdict"] == "AMBIGUOUS"  # alpha 0.05: too few runs
    with pytest.raises(pallasbench.UsageError, match="--repetitions 2: BASE gives 3 run"):
        pallasbench.compare(base, new, repetitions=2)


def test_html_page_draws_compares_own_numbers_changed_status_first(env, tmp_path):
    """compare --html: one page of the two runs; each cell is the number `compare --json` gives (the
    speedups the records', never recomputed), rows that changed status first; compare's exit code
    and markdown stay. BASE is a run folder holding only records.jsonl.gz, as the committed GPU
    results are; `report` reads it too."""
    import gzip
    import html
    import re

    base = base_records()
    a = tmp_path / "a"
    a.mkdir()
    (a / "records.jsonl.gz").write_bytes(gzip.compress("".join(json.dumps(r) + "\n" for r in base.values()).encode()))
    broken = copy.deepcopy(base["relu"])
    broken.update(status="incorrect", timing=None, passed=False)
    broken["result"]["robustness_passed"] = False
    b = write(tmp_path / "b.jsonl", [retimed(base["embedding_lookup"], 1.5), base["one_hot"], broken])
    page = tmp_path / "compare.html"
    proc = run_cli(env, "compare", a, b, "--html", page, timeout=30)
    assert proc.returncode == 1, proc.stderr  # SLOWER and BROKE, as without --html
    assert "| relu | small | 1.792 us | - | - | - | BROKE |" in proc.stdout and f"wrote {page}" in proc.stdout
    expected = {r["task"]: r for r in json.loads(run_cli(env, "compare", a, b, "--json", timeout=30).stdout)["rows"]}

    text = page.read_text()
    rows = re.findall(r'<tr class="compare-row[^"]*" data-task="([^"]*)" data-verdict="([^"]*)">(.*?)</tr>', text)
    # compare's order is BASE's (embedding_lookup, one_hot, relu); the page puts relu's change first.
    assert [(task, verdict) for task, verdict, _ in rows] == [
        ("relu", "BROKE"), ("embedding_lookup", "SLOWER"), ("one_hot", "SAME")]
    for task, verdict, cells in rows:
        found = re.findall(r'<td([^>]*)>(.*?)</td>', cells)
        value = [(re.search(r'data-v="([^"]*)"', attrs) or [None, None])[1] for attrs, _ in found]
        shown = [html.unescape(re.sub(r"<small>.*?</small>|<[^>]+>", "", body)) for _, body in found]
        row = expected[task]
        assert shown[5:7] == [row["base"]["status"], row["new"]["status"]]
        for column, side, key in ((7, "base", "median_us"), (8, "new", "median_us"), (9, "base", "speedup"),
                                  (10, "new", "speedup")):
            number = row[side][key]
            assert (value[column] or None) == (None if number is None else repr(number)), (task, column)
        assert value[9] == repr(base[task]["timing"]["speedup"])  # the record's own speedup
        assert shown[11] == ("-" if row["change"] is None else f"{100 * row['change']:+.2f}%")
        assert shown[13] == verdict == row["verdict"]
    assert "1 BROKE, 1 SAME, 1 SLOWER; 1 changed status" in text and html.escape(str(a)) in text

    proc = run_cli(env, "report", a, timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert "3 tasks: 3 ok" in proc.stdout, proc.stdout
