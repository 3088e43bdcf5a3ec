"""`pallasbench report DIR... --html FILE`: one self-contained page of runs' records. Styles, the
sorting script and the charts (SVG) are inline, and the page's Content-Security-Policy forbids
loading anything, so it opens the same offline. Every string from a record is escaped: records
hold candidates' error messages and stderr, which are hostile text.

    python -m pallasbench.tools.html_report --out report.html RUN_DIR_OR_RECORDS...
"""
from __future__ import annotations

import argparse
import html
from pathlib import Path

from pallasbench.tools import ToolUsageError, main
from pallasbench.tools import records as records_io
from pallasbench.tools.report_charts import (SLOW_LINE, category_colours, ratio_text, roofline_chart, sizes_chart,
                                             speedup_chart)
from pallasbench.tools.report_data import Group, Header, Row, groups, header_of, row_of
from pallasbench.tools.report_task import anchor, task_sections

CSS = """
body { font: 13px/1.4 system-ui, sans-serif; margin: 24px; color: #1b1b1b; }
h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 28px; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 8px 0; }
th, td { border: 1px solid #ddd; padding: 3px 7px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; } #tasks { font-size: 12px; } td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td small { display: block; color: #666; font-size: 11px; }
table.sortable th { cursor: pointer; user-select: none; }
th[data-order=asc]::after { content: " \\25B2"; } th[data-order=desc]::after { content: " \\25BC"; }
.ok { color: #17692f; } .bad { color: #a4161a; font-weight: 600; } .muted { color: #777; }
pre { background: #f7f7f7; padding: 6px; max-height: 220px; overflow: auto; white-space: pre-wrap; }
.chart svg { max-width: 100%; height: auto; } .note { color: #555; max-width: 60em; }
td.reason { max-width: 16em; overflow-wrap: anywhere; }
.scroll { overflow-x: auto; max-width: 100%; }
#tasks th { white-space: normal; }
#tasks th:first-child, #tasks td:first-child { position: sticky; left: 0; z-index: 1; background: #fff;
  box-shadow: 1px 0 0 #ddd; }
#tasks th:first-child { background: #f3f3f3; z-index: 2; }
details.task-detail { border: 1px solid #ddd; margin: 4px 0; padding: 2px 8px; }
details.task-detail > summary { cursor: pointer; font-size: 14px; }
section.record { border-top: 1px solid #eee; margin-top: 6px; }
h4 { margin: 8px 0 4px; } h5 { margin: 6px 0 2px; font-size: 12px; }
pre.traceback { max-height: 320px; }
.dag-box { max-height: 420px; overflow: auto; border: 1px solid #eee; }
"""

# Click a header to sort by it (again: the other way). `#sort=<column>:<asc|desc>` in the address
# sorts on load. Cells sort by their data-v (numbers numerically); empty values go last.
SCRIPT = """
function sortTable(table, key, order) {
  const heads = [...table.tHead.rows[0].cells];
  const column = heads.findIndex(th => th.dataset.key === key);
  if (column < 0) return;
  const rows = [...table.tBodies[0].rows];
  const value = row => row.cells[column].dataset.v ?? row.cells[column].textContent;
  const numeric = rows.every(row => value(row) === "" || !isNaN(Number(value(row))));
  const sign = order === "desc" ? -1 : 1;
  rows.sort((a, b) => {
    const x = value(a), y = value(b);
    if (x === "" || y === "") return (x === "") - (y === "");
    return sign * (numeric ? Number(x) - Number(y) : x.localeCompare(y));
  });
  rows.forEach(row => table.tBodies[0].appendChild(row));
  heads.forEach(th => delete th.dataset.order);
  heads[column].dataset.order = order;
  table.dataset.sorted = key + ":" + order;
}
document.querySelectorAll("table.sortable").forEach(table => {
  [...table.tHead.rows[0].cells].forEach(th => th.addEventListener("click", () =>
    sortTable(table, th.dataset.key, th.dataset.order === "asc" ? "desc" : "asc")));
});
// `#task-<name>` (a link to a task) opens its section.
function openTask() {
  const target = location.hash.startsWith("#task-") && document.getElementById(location.hash.slice(1));
  if (target && target.tagName === "DETAILS") { target.open = true; target.scrollIntoView(); }
}
window.addEventListener("hashchange", openTask);
openTask();
const wanted = /^#sort=([\\w-]+):(asc|desc)$/.exec(location.hash);
if (wanted) document.querySelectorAll("table.sortable").forEach(t => sortTable(t, wanted[1], wanted[2]));
"""

COLUMNS = (("task", "task"), ("level", "lvl"), ("category", "category"), ("size", "size"),
           ("candidate", "candidate"), ("status", "status"), ("robust", "robust"),
           ("filter", "failing filter"), ("kernel", "kernel µs [CI95]"), ("xla", "XLA µs [CI95]"),
           ("speedup", "speedup [CI95]"), ("roofline", "% roof- line"), ("registers", "regs"),
           ("spills", "spills"), ("tensor-core", "tensor core"))


def page_head(title: str) -> str:
    """The page's start up to <body>: inline styles, and a Content-Security-Policy that forbids
    loading anything (the page opens the same offline; a record's text cannot fetch)."""
    csp = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{csp}">\n'
            f"<title>{esc(title)}</title>\n<style>{CSS}</style></head><body>")


def esc(value) -> str:
    return html.escape(str(value), quote=True)


def cell(text, sort_value=None, numeric=False, css="", detail="") -> str:
    """A table cell; `detail` (a CI, say) goes on a small second line."""
    classes = " ".join(c for c in ("n" if numeric else "", css) if c)
    attributes = (f' class="{classes}"' if classes else "") + (
        f' data-v="{esc("" if sort_value is None else sort_value)}"' if sort_value is not None or numeric else "")
    return f"<td{attributes}>{esc(text)}" + (f"<small>{esc(detail)}</small>" if detail else "") + "</td>"


def breakable(text) -> str:
    """Escaped text that may wrap after "_" and "/" (long task names and sizes keep the table
    within 1280 px)."""
    return esc(text).replace("_", "_<wbr>").replace("/", "/<wbr>")


def interval_text(interval, digits: int) -> str:
    return f"[{interval[0]:.{digits}f}, {interval[1]:.{digits}f}]" if interval else ""


def task_row(row: Row) -> str:
    # Not CUPTI's device time (CPU interpret mode's wall clock): said in the cell, never compared.
    clock = f"{row.timer} clock" if row.timer and row.timer != "cupti" else ""
    robust = "-" if row.robust is None else ("yes" if row.robust else "no")
    status_css = "ok" if row.status == "ok" else "bad"
    cells = [
        f'<td><a href="#{anchor(row.task)}">{breakable(row.task)}</a></td>', cell(row.level if row.level is not None else "-", row.level, numeric=True),
        f"<td>{breakable(row.category)}</td>", f"<td>{breakable(row.size)}</td>", f"<td>{breakable(row.candidate)}</td>", cell(row.status, css=status_css),
        cell(robust, css="bad" if row.robust is False else ""),
        f'<td class="reason" title="{esc(row.filter_reason)}">{esc(row.failing_filter)}'
        + (f'<br><span class="muted">{esc(row.filter_reason)}</span>' if row.filter_reason else "") + "</td>",
        cell("-" if row.kernel_us is None else f"{row.kernel_us:.3f}", row.kernel_us, numeric=True,
             detail=clock or interval_text(row.kernel_ci, 3)),
        cell("-" if row.xla_us is None else f"{row.xla_us:.3f}", row.xla_us, numeric=True,
             detail=clock or interval_text(row.xla_ci, 3)),
        cell(ratio_text(row.speedup), row.speedup, numeric=True, detail=interval_text(row.speedup_ci, 2),
             css="bad" if row.speedup is not None and row.speedup < SLOW_LINE else ""),
        cell("-" if row.pct_roofline is None else f"{row.pct_roofline:.1f}%", row.pct_roofline, numeric=True,
             detail=row.bound),
        cell("-" if row.registers is None else row.registers, row.registers, numeric=True),
        cell("-" if row.spills is None else ("yes" if row.spills else "no"), css="bad" if row.spills else ""),
        cell(row.tensor_core or "-"),
    ]
    return f'<tr data-task="{esc(row.task)}" data-status="{esc(row.status)}">' + "".join(cells) + "</tr>"


def task_table(rows: list[Row]) -> str:
    heads = "".join(f'<th data-key="{key}">{esc(label)}</th>' for key, label in COLUMNS)
    body = "\n".join(task_row(row) for row in rows)
    return (f'<div class="scroll" id="tasks-box"><table class="sortable" id="tasks"><thead><tr>{heads}</tr></thead>'
            f"<tbody>\n{body}\n</tbody></table></div>")


def definition_table(pairs: list[tuple[str, str]]) -> str:
    return "<table>" + "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in pairs) + "</table>"


def header_section(header: Header) -> str:
    environment = [(k, ", ".join(v)) for k, v in header.environment.items() if v]
    flags = [(k, ", ".join(v)) for k, v in header.flags.items() if v]
    parts = ["<h2>Run</h2>", definition_table(
        [("records", str(header.records)), ("files", ", ".join(header.files)),
         ("run ids", ", ".join(header.run_ids))] + environment + flags + [("seeds", header.seeds)])]
    if header.ceilings:
        rows = "".join(f"<tr><td>{esc(c.name)}</td><td class=n>{c.value:.1f} {esc(c.unit)}</td><td>{esc(c.what)}</td>"
                       "</tr>" for c in header.ceilings)
        parts.append(f'<h3>Measured ceilings</h3><p class="note">{esc(header.ceilings_method)}</p>'
                     f"<table id=ceilings><tr><th>ceiling</th><th>value</th><th>how</th></tr>{rows}</table>")
    else:
        parts.append('<p class="note">No measured ceilings in these records (no GPU timing).</p>')
    return "\n".join(parts)


def group_table(title: str, table_id: str, found: list[Group]) -> str:
    rows = "".join(
        f"<tr><td>{esc(g.name)}</td><td class=n>{g.tasks}</td><td class=n>{g.ok}</td><td class=n>{g.passed}</td>"
        f"<td class=n>{len(g.speedups)}</td><td class=n>{esc(ratio_text(g.geomean))}</td></tr>" for g in found)
    return (f"<h3>{esc(title)}</h3><table id={table_id}><tr><th>{esc(title.split()[-1])}</th><th>records</th>"
            f"<th>ok</th><th>passed</th><th>timed</th><th>geomean speedup</th></tr>{rows}</table>")


def failures_section(rows: list[Row]) -> str:
    failed = [r for r in rows if not r.passed]
    if not failed:
        return "<h2>Failures</h2><p>None: every record is ok and robust.</p>"
    items = []
    for row in failed:
        why = row.message or (f"filter {row.failing_filter}: {row.filter_reason}" if row.failing_filter else "")
        tail = f"<pre>{esc(row.stderr_tail)}</pre>" if row.stderr_tail else ""
        if row.traceback:
            tail += f'<details><summary>traceback</summary><pre class="traceback">{esc(row.traceback)}</pre></details>'
        verdict = "ok, not robust" if row.status == "ok" else row.status
        items.append(f'<div class="failure" data-task="{esc(row.task)}"><h3>{esc(row.task)} ({esc(row.size)}, '
                     f'{esc(row.candidate)}): <span class="bad">{esc(verdict)}</span>'
                     f'{" in " + esc(row.phase) if row.phase else ""}</h3><p>{esc(why)} '
                     f'<a href="#{anchor(row.task)}">details</a></p>{tail}</div>')
    return f"<h2>Failures ({len(failed)})</h2>" + "\n".join(items)


def chart_section(title: str, chart_id: str, svg: str | None, absent: str, note: str = "") -> str:
    body = f'<div class="chart" id="{chart_id}">{svg}</div>' if svg else f'<p class="note">{esc(absent)}</p>'
    return f"<h2>{esc(title)}</h2>" + (f'<p class="note">{esc(note)}</p>' if note else "") + body


def size_charts(rows: list[Row]) -> dict[str, str]:
    """Each task's plot over sizes and backends, where its records span several."""
    by_task: dict[str, list[Row]] = {}
    for row in rows:
        by_task.setdefault(row.task, []).append(row)
    charts = {task: sizes_chart(found) for task, found in by_task.items()}
    return {task: svg for task, svg in charts.items() if svg}


def page(records: list[dict], header: Header, folders: list[Path] | None = None) -> str:
    rows = [row_of(r) for r in records]
    colours = category_colours(rows)
    statuses: dict[str, int] = {}
    for row in rows:
        statuses[row.status] = statuses.get(row.status, 0) + 1
    counts = ", ".join(f"{n} {s}" for s, n in sorted(statuses.items()))
    no_flops = sorted({r.task for r in rows if r.kernel_us and not r.intensity})
    roof_note = "Kernel points filled, XLA points hollow, joined per task; lines: the run's measured ceilings."
    if no_flops:
        roof_note += f" Not drawn (no FLOP or byte count): {', '.join(no_flops)}."
    return "\n".join([
        page_head("PallasBench report"),
        f"<h1>PallasBench report</h1><p>{len(rows)} rows: {esc(counts)}.</p>",
        header_section(header),
        "<h2>Geomean speedup over XLA</h2>",
        group_table("by level", "by-level", groups(rows, lambda r: r.level)),
        group_table("by category", "by-category", groups(rows, lambda r: r.category)),
        chart_section("Speedup over XLA", "speedup-chart", speedup_chart(rows, colours),
                      "No record was timed against XLA (CPU interpret mode, or --no-timing)."),
        chart_section("Roofline", "roofline-chart", roofline_chart(rows, header.ceilings, colours),
                      "No timed record with FLOP and byte counts, or no measured ceilings.", roof_note),
        "<h2>Tasks</h2><p class=note>Click a column to sort. % of roofline: achieved over min(peak, intensity "
        "x bandwidth), from the record's roofline fields.</p>", task_table(rows),
        failures_section(rows),
        task_sections(records, folders or [None] * len(records), size_charts(rows)),
        f"<script>{SCRIPT}</script></body></html>", ""])


def write_page(out: Path, text: str, what: str) -> None:
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as e:
        raise ToolUsageError(f"cannot write {out}: {e.strerror}") from e
    print(f"wrote {out} ({what}, {len(text) // 1024} KiB)", flush=True)


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="pallasbench report --html")
    parser.add_argument("--out", required=True, help="the HTML file to write")
    parser.add_argument("inputs", nargs="+", help="run folders or records.jsonl files")
    args = parser.parse_args(argv)
    items = records_io.read_all(args.inputs)  # every record a row, as `report`'s text table
    records_io.portable_paths(items)  # an older binary's absolute paths, shown relative
    records = [record for record, _ in items]
    header = header_of(records, [str(records_io.records_path(a)) for a in args.inputs])
    text = page(records, header, [source.path.parent for _, source in items])
    write_page(Path(args.out), text, f"{len(records)} records")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(run))
