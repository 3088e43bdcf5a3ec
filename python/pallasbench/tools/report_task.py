"""The HTML report's section per task: an expandable <details> holding each distinct source, and per
record (size, dtype, backend, candidate) what it carries: the error and its traceback, the
filters' values against their thresholds, the seeds and stress cases with their errors, the
compiler summary, the jaxpr DAG, the kernels' IR and PTX/SASS excerpts. Every string is a
record's and is escaped; long texts are cut to an excerpt that says how much it left out."""
from __future__ import annotations

import html
from collections import OrderedDict
from pathlib import Path

from pallasbench.tools import records as record_reader
from pallasbench.tools.report_dag import MAX_NODES, dag_svg
from pallasbench.tools.report_data import Row, row_of

EXCERPT_LINES = 60
EXCERPT_BYTES = 64 * 1024  # read of an artifact file: far more than EXCERPT_LINES lines


def esc(value) -> str:
    return html.escape(str(value), quote=True)


def anchor(task: str) -> str:
    return "task-" + "".join(c if c.isalnum() or c in "-_" else "-" for c in task)


def excerpt(text: str, lines: int = EXCERPT_LINES) -> str:
    kept = text.split("\n")
    if len(kept) <= lines:
        return text
    return "\n".join(kept[:lines]) + f"\n... ({len(kept) - lines} more lines, {len(text)} characters in all)"


def _number(value, digits: int = 3) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return "-" if value is None else str(value)
    return f"{value:.{digits}g}"


def table(css: str, heads: list[str], rows: list[list[str]]) -> str:
    """A small table of already-escaped cells, in a horizontally scrolling box."""
    head = "".join(f"<th>{esc(h)}</th>" for h in heads)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f'<div class="scroll"><table class="{css}"><tr>{head}</tr>{body}</table></div>'


def filters_table(record: dict) -> str:
    filters = ((record.get("result") or {}).get("filters")) or {}
    if not filters:
        return '<p class="note">No filter verdicts in this record.</p>'
    rows = []
    for name, verdict in filters.items():
        verdict = verdict if isinstance(verdict, dict) else {}
        passed = verdict.get("passed")
        rows.append([esc(name), esc(_number(verdict.get("value"))),
                     esc(f"{verdict.get('direction', '')} {_number(verdict.get('threshold'))}".strip()),
                     f'<span class="{"ok" if passed else "bad"}">{"pass" if passed else "fail"}</span>',
                     esc(verdict.get("reason", ""))])
    return table("filters", ["filter", "value", "threshold", "verdict", "why"], rows)


CHECK_COLUMNS = (("max_abs_error", "max abs err"), ("max_rel_error", "max rel err"),
                 ("rel_norm_error", "rel norm err"), ("mismatches", "mismatches"), ("elements", "elements"))


def checks_table(cases: list, first: tuple[str, str]) -> str:
    rows = []
    for case in cases:
        if not isinstance(case, dict):
            continue
        cells = [esc(case.get(first[0], "-"))] + [esc(_number(case.get(key))) for key, _ in CHECK_COLUMNS]
        passed = case.get("passed")
        cells.append(f'<span class="{"ok" if passed else "bad"}">{"pass" if passed else "fail"}</span>')
        cells.append(esc(case.get("reason", "") or case.get("determinism", "")))
        rows.append(cells)
    return table("checks", [first[1]] + [label for _, label in CHECK_COLUMNS] + ["verdict", "note"], rows)


def correctness_block(record: dict) -> str:
    correctness = record.get("correctness") if isinstance(record.get("correctness"), dict) else {}
    parts = []
    seeds = correctness.get("seeds")
    if isinstance(seeds, list) and seeds:
        parts.append("<h5>Seeds</h5>" + checks_table(seeds, ("seed", "seed")))
    elif record.get("seeds"):
        parts.append(f"<h5>Seeds</h5><p>{esc(', '.join(map(str, record['seeds'])))} (no per-seed errors recorded)</p>")
    stress = correctness.get("stress")
    if isinstance(stress, list) and stress:
        parts.append("<h5>Stress cases</h5>" + checks_table(stress, ("case", "case")))
    skipped = correctness.get("stress_skipped")
    if isinstance(skipped, list) and skipped:
        items = "".join(f"<li>{esc(s.get('key', '?'))}: {esc(s.get('value', ''))}</li>"
                        for s in skipped if isinstance(s, dict))
        parts.append(f'<details><summary>stress cases not run ({len(skipped)})</summary><ul>{items}</ul></details>')
    return "".join(parts)


def error_block(record: dict) -> str:
    error = record.get("error") if isinstance(record.get("error"), dict) else {}
    if not error:
        return ""
    parts = [f'<p class="bad">{esc(error.get("phase", ""))}: {esc(error.get("message", ""))}</p>']
    lowering = error.get("lowering") if isinstance(error.get("lowering"), dict) else {}
    fixes = [f for f in lowering.get("fixes") or [] if isinstance(f, str)]
    if lowering.get("candidate_line"):
        parts.append(f"<p>at {esc(lowering['candidate_line'])}</p>")
    if fixes:
        parts.append("<ul>" + "".join(f"<li>{esc(f)}</li>" for f in fixes) + "</ul>")
    if error.get("traceback"):
        parts.append(f'<details open><summary>traceback</summary><pre class="traceback">'
                     f'{esc(error["traceback"])}</pre></details>')
    if record.get("stderr_tail"):
        parts.append(f"<details><summary>stderr</summary><pre>{esc(record['stderr_tail'])}</pre></details>")
    return "".join(parts)


def artifact_text(folder: Path | None, relative: str) -> str | None:
    """The start of an --artifacts files artifact beside its records file (its path relative to
    that folder, never absolute nor climbing out of it: the path is a record's)."""
    path = Path(relative)
    if folder is None or path.is_absolute() or ".." in path.parts or not (folder / path).is_file():
        return None
    with open(folder / path, "rb") as file:
        return file.read(EXCERPT_BYTES).decode("utf-8", errors="replace")


def compiler_block(record: dict, folder: Path | None = None) -> str:
    artifacts = record.get("artifacts") if isinstance(record.get("artifacts"), dict) else {}
    summary = artifacts.get("summary") if isinstance(artifacts.get("summary"), dict) else {}
    parts = []
    kernels = [k for k in summary.get("kernels") or [] if isinstance(k, dict)]
    if summary:
        facts = [f"{label}: {esc(summary[key])}" for key, label in (("max_registers", "registers"), ("spills", "spills"),
                 ("tensor_core", "tensor core"), ("sass_arch", "arch")) if key in summary]
        parts.append(f'<p class="compiler-summary">{" · ".join(facts) or "compiler summary: no values"}</p>')
        if kernels:
            parts.append(table("kernels", ["kernel", "registers", "threads", "shared memory", "instructions", "grid"],
                               [[esc(k.get("name", "?")), esc(_number(k.get("registers"))),
                                 esc(_number(k.get("threads_per_block"))), esc(_number(k.get("shared_memory_bytes"))),
                                 esc(_number(k.get("instructions"))), esc(k.get("grid", "-"))] for k in kernels]))
        missing = [m for m in summary.get("missing") or [] if isinstance(m, dict)]
        if missing:
            parts.append('<p class="note">not known: ' + "; ".join(
                f"{esc(m.get('key'))} ({esc(m.get('value'))})" for m in missing) + "</p>")
    for index, entry in enumerate(artifacts.get("triton_ir") or []):
        if isinstance(entry, dict) and isinstance(entry.get("ir"), str):
            parts.append(f'<details class="ir"><summary>Triton IR {index + 1} ({esc(entry.get("custom_call", ""))})'
                         f'</summary><pre>{esc(excerpt(entry["ir"]))}</pre></details>')
    if isinstance(record.get("stablehlo"), str) and record["stablehlo"]:  # the module as lowered, any backend
        parts.append(f'<details class="stablehlo"><summary>StableHLO excerpt</summary>'
                     f'<pre>{esc(excerpt(record["stablehlo"]))}</pre></details>')
    for key, label in (("ptx", "PTX"), ("sass", "SASS"), ("ptxas", "ptxas"), ("thunk_sequence", "thunk sequence")):
        value = artifacts.get(key)
        if isinstance(value, str) and value:
            value = {"text": value}
        if not isinstance(value, dict):
            continue
        if isinstance(value.get("path"), str) and "text" not in value:
            text = artifact_text(folder, value["path"])
            if text is not None:
                value = {**value, "text": text}
        if isinstance(value.get("text"), str):
            parts.append(f'<details class="{key}"><summary>{label} excerpt ({esc(value.get("bytes", len(value["text"])))}'
                         f' bytes)</summary><pre class="{key}-text">{esc(excerpt(value["text"]))}</pre></details>')
        elif isinstance(value.get("path"), str):
            # A link only for a plain relative path: a record's "javascript:..." must stay text.
            path = Path(value["path"])
            plain = not path.is_absolute() and ".." not in path.parts and ":" not in value["path"]
            shown = f'<a href="{esc(path.as_posix())}">{esc(value["path"])}</a>' if plain else esc(value["path"])
            if path.is_absolute():  # an older binary's path outside the run folder: another machine's, withheld
                shown = f"{esc(path.name)} (an absolute path outside the run folder, withheld)"
            parts.append(f'<p class="{key}">{label}: {shown} ({esc(value.get("bytes", "?"))} bytes, in a file '
                         "beside the records file, not found here)</p>")
    if not parts:
        why = artifacts.get("artifacts_unavailable") or "no compiler artifacts in this record"
        parts.append(f'<p class="note">{esc(why)}</p>')
    return "<h5>Compiler</h5>" + "".join(parts)


def dag_block(record: dict) -> str:
    artifacts = record.get("artifacts") if isinstance(record.get("artifacts"), dict) else {}
    dag = artifacts.get("jaxpr_dag") or record.get("jaxpr_dag")
    svg = dag_svg(dag)
    if svg:
        return f'<h5>jaxpr DAG</h5><div class="scroll dag-box">{svg}</div>'
    nodes = dag.get("nodes") if isinstance(dag, dict) else None
    if isinstance(nodes, list) and len(nodes) > MAX_NODES:
        return f'<p class="note">jaxpr DAG of {len(nodes)} nodes: too large to draw (at most {MAX_NODES}).</p>'
    if isinstance(record.get("jaxpr"), str) and record["jaxpr"]:
        return f'<h5>jaxpr</h5><details><summary>text</summary><pre>{esc(excerpt(record["jaxpr"]))}</pre></details>'
    return '<p class="note">No jaxpr DAG or jaxpr text in this record.</p>'


def record_block(record: dict, row: Row, folder: Path | None) -> str:
    verdict = "passed" if row.passed else ("ok, not robust" if row.status == "ok" else row.status)
    backend = (record.get("config") or {}).get("backend") or ""
    title = f"{row.size}{' · ' + backend if backend and backend not in row.size else ''} · {row.candidate}"
    return (f'<section class="record" data-status="{esc(row.status)}"><h4>{esc(title)}: '
            f'<span class="{"ok" if row.passed else "bad"}">{esc(verdict)}</span></h4>'
            + error_block(record) + "<h5>Filters</h5>" + filters_table(record) + correctness_block(record)
            + compiler_block(record, folder) + dag_block(record) + "</section>")


def task_sections(records: list[dict], folders: list[Path | None], charts: dict[str, str]) -> str:
    """One <details> per task, in the order first seen; `folders` holds each record's records-file
    folder (where its artifact files are), `charts` maps a task to its plot over sizes and
    backends (report_charts.sizes_chart)."""
    by_task: OrderedDict[str, list[tuple[dict, Path | None]]] = OrderedDict()
    for record, folder in zip(records, folders):
        by_task.setdefault(str(record.get("kernel_name", "?")), []).append((record, folder))
    parts = ['<h2>Tasks in detail</h2><p class="note">Open a task for its sources, and per record the filters '
             "with their thresholds, the seeds and stress cases, the compiler's output and the jaxpr DAG.</p>"]
    for task, pairs in by_task.items():
        found = [record for record, _ in pairs]
        rows = [row_of(r) for r in found]
        passed = sum(r.passed for r in rows)
        sources: OrderedDict[str, list[str]] = OrderedDict()
        for record in found:
            text = record.get("source_original") or ""
            if text:
                sources.setdefault(text, []).append(record_reader.candidate_name(record))
        source_html = "".join(
            f'<details class="source"><summary>source: {esc(", ".join(dict.fromkeys(names)))}</summary>'
            f"<pre>{esc(text)}</pre></details>" for text, names in sources.items())
        chart = f'<div class="chart sizes-chart">{charts[task]}</div>' if task in charts else ""
        parts.append(f'<details class="task-detail" id="{anchor(task)}" data-task="{esc(task)}"><summary>'
                     f'<b>{esc(task)}</b>: {len(found)} record{"s" if len(found) != 1 else ""}, {passed} passed'
                     f"</summary>{chart}{source_html}"
                     + "".join(record_block(r, row, folder) for (r, folder), row in zip(pairs, rows))
                     + "</details>")
    return "\n".join(parts)
