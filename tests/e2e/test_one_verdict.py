"""One verdict, read everywhere: the text table, the markdown table, the HTML report's data,
`compare` and the dataset card agree on which records passed and on each speedup, over one mixed
records file (ok, ok but not robust, failed; GPU-timed and CPU wall-clock; with and without the
record's own `passed` field). None of them re-derives what the record says."""
import json
import re
from pathlib import Path

import pytest

from e2e_support import run_cli
from pallasbench.tools import card_numbers, records, report_data

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "records"


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """Every fixture record once, each under a task name of its own (the tables' cells are read by
    task name), plus one whose `passed` field says what its status alone would not."""
    rows = []
    for path in sorted(FIXTURES.glob("*.jsonl")):
        for number, line in enumerate(path.read_text().splitlines()):
            record = json.loads(line)
            record["kernel_name"] = f"{record['kernel_name']}_{path.stem}_{number}"
            rows.append(record)
    vetoed = json.loads(json.dumps(next(r for r in rows if r["status"] == "ok" and r["result"]["robustness_passed"]
                                        and "speedup" in (r.get("timing") or {}))))
    vetoed["kernel_name"], vetoed["passed"] = "vetoed", False
    rows.append(vetoed)
    kinds = {(r["status"] == "ok", r["result"]["robustness_passed"], r["config"]["device"]) for r in rows}
    assert {(True, True, "gpu"), (True, False, "gpu"), (False, False, "gpu"), (True, True, "cpu"),
            (False, False, "cpu")} <= kinds
    path = tmp_path_factory.mktemp("one-verdict") / "records.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path, rows


def table_cells(text: str, column: str) -> dict[str, str]:
    """Each task row's cell under `column` in the text table (right-aligned, 7 wide for ratio)."""
    lines = text.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("task "))
    end = lines[header].index(column) + len(column)
    cells = {}
    for line in lines[header + 1:]:
        if re.match(r"\d+ (tasks|records? of \d+ tasks?|candidates? of \d+ tasks?): ", line):  # the summary's count
            break
        cells[line.split()[0]] = line[end - 7:end].strip()
    return cells


def markdown_cells(text: str, column: str) -> dict[str, str]:
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in text.splitlines() if line.startswith("|")]
    at = rows[0].index(column)
    return {row[0]: row[at] for row in rows[2:]}


def passed_count(text: str) -> int:
    return int(re.search(r"(\d+) of \d+ passed \(ok and robust\)", text).group(1))


def test_every_reader_agrees_on_the_verdicts_and_speedups(env, mixed):
    path, rows = mixed
    passed = {r["kernel_name"] for r in rows if records.passed(r)}
    speedups = {r["kernel_name"]: records.speedup(r) for r in rows}
    assert "vetoed" not in passed and 0 < len(passed) < len(rows)
    assert any(s is not None for s in speedups.values()) and any(s is None for s in speedups.values())
    shown = {task: f"{s:.2f}x" if s is not None else "-" for task, s in speedups.items()}

    table = run_cli(env, "report", path, "--format", "table")
    markdown = run_cli(env, "report", path, "--format", "markdown")
    assert table.returncode == 0 and markdown.returncode == 0, table.stderr + markdown.stderr
    assert table_cells(table.stdout, "ratio") == shown
    assert markdown_cells(markdown.stdout, "ratio (ref/kernel)") == shown
    assert passed_count(table.stdout) == passed_count(markdown.stdout) == len(passed)

    html_rows = [report_data.row_of(r) for r in rows]
    assert {r.task for r in html_rows if r.passed} == passed
    assert {r.task: r.speedup for r in html_rows} == speedups

    compared = run_cli(env, "compare", path, path, "--json")
    assert compared.returncode == 0, compared.stderr
    joined = json.loads(compared.stdout)["rows"]
    assert {r["task"] for r in joined if r["base"]["passed"] and r["new"]["passed"]} == passed

    card = card_numbers.pass_row("all", rows)
    assert card.passed.passed == len(passed)
    kept = [s for task, s in speedups.items() if s is not None and task in passed]
    assert card_numbers.speed_row("all", rows).passed == len(kept)
    assert card_numbers.speed_row("all", rows).geomean == pytest.approx(report_data.geomean(kept))
    (everything,) = report_data.groups(html_rows, lambda r: "all")
    assert everything.passed == len(passed) and everything.geomean == pytest.approx(report_data.geomean(kept))
