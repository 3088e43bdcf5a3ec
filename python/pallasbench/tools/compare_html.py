"""`pallasbench compare BASE NEW --html FILE`: the comparison as one self-contained page. The binary
computes every number (report/compare.cpp: the joined rows, each side's status, median and speedup,
the change, the U test's p-value, the verdict) and hands its JSON (`compare --json`) to this tool on
stdin; the page only orders and draws them, rows that changed status first. Every string is
escaped: rows name candidates' files.

    pallasbench compare A B --json > c.json
    python -m pallasbench.tools.compare_html --out compare.html --compare c.json --base A --new B
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pallasbench.tools import ToolUsageError, main
from pallasbench.tools.html_report import SCRIPT, breakable, cell, esc, page_head, write_page
from pallasbench.tools.report_charts import ratio_text

# Verdicts a reader must see first and in colour (report/compare.hpp, compare_verdict).
BAD = ("SLOWER", "BROKE")
GOOD = ("FASTER", "FIXED")
COLUMNS = (("task", "task"), ("size", "size"), ("dtype", "dtype"), ("backend", "backend"),
           ("candidate", "candidate"), ("base-status", "BASE status"), ("new-status", "NEW status"),
           ("base-median", "BASE median µs"), ("new-median", "NEW median µs"), ("base-speedup", "BASE speedup"),
           ("new-speedup", "NEW speedup"), ("change", "change"), ("p", "p (U test)"), ("verdict", "verdict"),
           ("note", "note"))


def status_changed(row: dict) -> bool:
    """Both sides there, and their recorded status or verdict (`passed`) differ."""
    base, new = row.get("base"), row.get("new")
    return bool(base and new) and (base.get("status") != new.get("status") or base.get("passed") != new.get("passed"))


def ordered(rows: list[dict]) -> list[dict]:
    """Rows that changed status first, then those one side lacks (ADDED, REMOVED), then the rest,
    each group in compare's order (BASE's, then NEW's own rows)."""
    def group(row: dict) -> int:
        return 0 if status_changed(row) else (1 if not (row.get("base") and row.get("new")) else 2)
    return sorted(rows, key=group)


def side_cells(side: dict | None) -> tuple[str, str, str]:
    """A side's status, median and speedup cells (the binary's numbers, formatted only)."""
    if not side:
        return cell("absent", css="muted"), cell("-", numeric=True), cell("-", numeric=True)
    median, speedup = side.get("median_us"), side.get("speedup")
    runs = side.get("runs", 1)
    clock = "wall clock" if side.get("wall_clock") else ""
    return (cell(side.get("status", "?"), css="ok" if side.get("passed") else "bad"),
            cell("-" if median is None else f"{median:.3f}", median, numeric=True,
                 detail=", ".join(d for d in (clock, f"median of {runs} runs" if runs > 1 else "") if d)),
            cell(ratio_text(speedup), speedup, numeric=True))


def compare_row(row: dict) -> str:
    verdict = str(row.get("verdict", "?"))
    change, p = row.get("change"), row.get("p_value")
    base_cells, new_cells = side_cells(row.get("base")), side_cells(row.get("new"))
    cells = [f"<td>{breakable(row.get('task', '?'))}</td>", f"<td>{breakable(row.get('size', ''))}</td>",
             cell(row.get("dtype", "")), cell(row.get("backend") or "-"), cell(row.get("candidate") or "suite"),
             base_cells[0], new_cells[0], base_cells[1], new_cells[1], base_cells[2], new_cells[2],
             cell("-" if change is None else f"{100 * change:+.2f}%", change, numeric=True),
             cell("-" if p is None else f"{p:.4f}", p, numeric=True),
             cell(verdict, css="bad" if verdict in BAD else ("ok" if verdict in GOOD else "")),
             f'<td class="reason">{esc(row.get("note", ""))}</td>']
    changed = " changed" if status_changed(row) else ""
    return (f'<tr class="compare-row{changed}" data-task="{esc(row.get("task", "?"))}" '
            f'data-verdict="{esc(verdict)}">' + "".join(cells) + "</tr>")


def page(comparison: dict, base: str, new: str) -> str:
    rows = ordered(comparison["rows"])
    counts = ", ".join(f"{n} {v}" for v, n in (comparison.get("counts") or {}).items() if n)
    changed = sum(status_changed(r) for r in rows)
    rule = (f"FASTER/SLOWER: the medians differ by more than {100 * comparison.get('threshold', 0.02):g}% and "
            f"beyond the noise (with two runs a side or more, the Mann-Whitney U test's p below "
            f"{comparison.get('alpha', 0.05):g}; with one run, disjoint CI95 intervals). Speedups are XLA's "
            "median over the kernel's, as each record states it.")
    within = ('<p class="note">One run a side: the verdicts rest on each run\'s own CI95; give several runs a '
              "side (--repetitions) for a U test across runs.</p>") if comparison.get("within_run_only") else ""
    heads = "".join(f'<th data-key="{key}">{esc(label)}</th>' for key, label in COLUMNS)
    body = "\n".join(compare_row(r) for r in rows)
    return "\n".join([
        page_head("PallasBench comparison"),
        "<h1>PallasBench comparison</h1>",
        f"<table id=sides><tr><th>BASE</th><td>{esc(base)}</td></tr><tr><th>NEW</th><td>{esc(new)}</td></tr></table>",
        f"<p id=counts>{len(rows)} rows: {esc(counts or 'none')}; {changed} changed status.</p>",
        f'<p class="note">{esc(rule)}</p>{within}',
        f'<div class="scroll"><table class="sortable" id="compare"><thead><tr>{heads}</tr></thead>'
        f"<tbody>\n{body}\n</tbody></table></div>",
        f"<script>{SCRIPT}</script></body></html>", ""])


def load(source: str) -> dict:
    """compare's JSON object, from a file or stdin ("-")."""
    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
        comparison = json.loads(text)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ToolUsageError(f"cannot read the comparison {source}: {e}") from e
    if not isinstance(comparison, dict) or not isinstance(comparison.get("rows"), list):
        raise ToolUsageError(f"{source}: not the JSON of `pallasbench compare --json` (no rows)")
    return comparison


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="pallasbench compare --html")
    parser.add_argument("--out", required=True, help="the HTML file to write")
    parser.add_argument("--compare", required=True, help="`pallasbench compare --json`'s output, '-' for stdin")
    parser.add_argument("--base", default="BASE", help="what BASE was (shown on the page)")
    parser.add_argument("--new", default="NEW", help="what NEW was")
    parser.add_argument("--exit-code", type=int, default=0, help="the exit code once the page is written")
    args = parser.parse_args(argv)
    comparison = load(args.compare)
    write_page(Path(args.out), page(comparison, args.base, args.new), f"{len(comparison['rows'])} rows")
    return args.exit_code


if __name__ == "__main__":
    raise SystemExit(main(run))
