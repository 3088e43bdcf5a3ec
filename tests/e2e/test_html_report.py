"""`pallasbench report --html` on a real H200 run (tests/fixtures/report, made by make_fixture.py)
and CPU failures, read back as text and rendered by a real browser (Debian's headless Chromium):
the rows, the charts, the geomeans, sorting, and that hostile record text stays text."""
import json
import math
import re
import shutil
import subprocess
from html import unescape
from pathlib import Path

import pytest

from e2e_support import ROOT, run_cli
from pallasbench.tools.records import passed as record_passed

FIXTURES = ROOT / "tests" / "fixtures"
H200_RUN = FIXTURES / "report" / "h200_run.jsonl"
CPU_FAILURES = FIXTURES / "records" / "cpu_failures.jsonl"
CHROMIUM = "chromium-headless-shell"


def records_of(*paths):
    return [json.loads(line) for path in paths for line in Path(path).read_text().splitlines() if line.strip()]


def browser():
    found = shutil.which(CHROMIUM)
    if not found:
        pytest.fail(f"{CHROMIUM} is missing: `make deps` installs it (Debian package {CHROMIUM})")
    return found


def render(page: Path, fragment: str = "", *extra) -> subprocess.CompletedProcess:
    """The page's DOM after its scripts ran, or a screenshot with --screenshot=FILE in `extra`."""
    command = [browser(), "--no-sandbox", "--disable-gpu", "--hide-scrollbars", *extra]
    if not extra:
        command.append("--dump-dom")
    proc = subprocess.run([*command, page.resolve().as_uri() + fragment], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc


@pytest.fixture(scope="module")
def page(env, tmp_path_factory):
    out = tmp_path_factory.mktemp("html") / "report.html"
    proc = run_cli(env, "report", H200_RUN, CPU_FAILURES, "--html", out, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert f"wrote {out}" in proc.stdout
    return out


def body_rows(html: str) -> list[str]:
    table = html[html.index('id="tasks"'):]
    tbody = table[table.index("<tbody>"):table.index("</tbody>")]
    return re.findall(r'<tr data-task="([^"]*)" data-status="([^"]*)"', tbody)


def test_every_record_is_a_row_and_every_failure_is_listed(page):
    html = page.read_text()
    records = records_of(H200_RUN, CPU_FAILURES)
    # Every record is a row: the CPU failures are relu or reduce_sum candidates of one size.
    rows = body_rows(html)
    assert len(rows) == len(records)
    assert sorted(t for t, _ in rows) == sorted(r["kernel_name"] for r in records)
    failed = [r for r in records if r["status"] != "ok" or r["result"].get("robustness_passed") is False]
    assert f"<h2>Failures ({len(failed)})</h2>" in html
    assert html.count('<div class="failure"') == len(failed)
    # A failed candidate's stderr tail is on the page (one that wrote bytes that are not UTF-8).
    tails = [r["stderr_tail"] for r in records if r.get("stderr_tail")]
    assert tails and all(f"<pre>{tail}</pre>" in html for tail in tails)


def text_rows(stdout: str) -> list[tuple[str, ...]]:
    """`report`'s table as (task, size, candidate, status, ratio) per row."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("task "))
    rows = []
    for line in lines[start + 1:]:
        if re.match(r"\d+ (tasks|records|candidates)", line):
            break
        cells = re.split(r"\s{2,}", line.strip())
        rows.append((cells[0], cells[1], cells[2], cells[3], cells[8]))
    return rows


def html_rows(html: str) -> list[tuple[str, ...]]:
    tbody = html[html.index('id="tasks"'):]
    tbody = tbody[tbody.index("<tbody>"):tbody.index("</tbody>")]
    rows = []
    for row in re.findall(r"<tr data-task=.*?</tr>", tbody):
        cells = [unescape(re.sub(r"<small>.*?</small>|<[^>]+>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]
        rows.append((cells[0], cells[3], cells[4], cells[5], cells[10]))
    return rows


def test_the_text_report_shows_the_same_rows_and_numbers_as_the_html(env, page):
    """No record hides another: each candidate of one task and size is a row named by its file,
    in both reports, with the same status and speedup."""
    proc = run_cli(env, "report", H200_RUN, CPU_FAILURES, timeout=60)
    assert proc.returncode == 0, proc.stderr
    records = records_of(H200_RUN, CPU_FAILURES)
    text = text_rows(proc.stdout)
    assert len(text) == len(records)
    assert text == html_rows(page.read_text())
    # Named by the batch request's id where there is one, else by the file's name.
    names = {r.get("request_id") or Path(r["candidate"]["path"]).name for r in records
             if r["candidate"]["kind"] == "user"}
    assert len(names) > 1 and names <= {row[2] for row in text}
    tasks = len({r["kernel_name"] for r in records})
    assert f"{len(records)} records of {tasks} tasks: " in proc.stdout


def test_header_has_the_runs_machine_and_ceilings(page):
    html = page.read_text()
    for text in ("NVIDIA H200", "580.159.04", "0.11.2", "3.6.0", "13.0", "matmul_bf16", "895.0 TFLOP/s",
                 "4339.1 GB/s", "os_entropy"):
        assert text in html, text


def test_geomeans_per_level_match_the_records(page):
    html = page.read_text()
    records = records_of(H200_RUN, CPU_FAILURES)
    table = html[html.index('<table id=by-level>'):]
    table = table[:table.index("</table>")]
    for level in (1, 2, 3):
        speedups = [r["timing"]["speedup"] for r in records
                    if r["level"] == level and r["status"] == "ok" and r["result"]["robustness_passed"]
                    and "speedup" in r.get("timing", {})]
        expected = math.exp(sum(map(math.log, speedups)) / len(speedups))
        row = re.search(rf"<tr><td>{level}</td>(.*?)</tr>", table).group(1)
        cells = re.findall(r"<td class=n>([^<]*)</td>", row)
        assert cells[3] == str(len(speedups)) and cells[4] == f"{expected:.2f}x", (level, cells)


def test_charts_are_svg_with_the_tasks_named(page):
    html = page.read_text()
    for chart in ("speedup-chart", "roofline-chart"):
        start = html.index(f'<div class="chart" id="{chart}"><svg')
        svg = html[start:html.index("</svg>", start)]
        for task in ("kmer_count", "flash_attention", "matmul"):
            assert f">{task}<" in svg or f">{task} " in svg, (chart, task)
    speedup = html[html.index('id="speedup-chart"'):]
    assert "0.8x" in speedup[:speedup.index("</svg>")]  # the 0.8x line's legend entry
    roofline = html[html.index('id="roofline-chart"'):]
    assert "matmul_bf16: 895.0 TFLOP/s" in roofline[:roofline.index("</svg>")]


def test_the_browser_renders_the_table_sorted_by_speedup(page):
    dom = render(page, "#sort=speedup:desc").stdout
    assert 'data-sorted="speedup:desc"' in dom
    tasks = [t for t, _ in body_rows(dom)]
    timed = sorted((r for r in records_of(H200_RUN) if "speedup" in r.get("timing", {})),
                   key=lambda r: -r["timing"]["speedup"])
    assert tasks[:3] == [r["kernel_name"] for r in timed[:3]]
    assert tasks[0] == "kmer_count"
    dom = render(page, "#sort=task:asc").stdout
    tasks = [t for t, _ in body_rows(dom)]
    assert tasks == sorted(tasks)
    assert dom.count("<svg") >= 2


def test_a_screenshot_shows_the_page(page, tmp_path):
    from PIL import Image

    shot = tmp_path / "report.png"
    render(page, "", f"--screenshot={shot}", "--window-size=1300,2400")
    image = Image.open(shot).convert("RGB")
    assert image.size == (1300, 2400)
    colours = image.getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50  # text, tables and the bars, not a blank page


def test_hostile_record_text_stays_text(env, tmp_path):
    record = records_of(CPU_FAILURES)[0]
    record["error"]["message"] = '<script>document.title="owned"</script><img src=x onerror=alert(1)>'
    record["stderr_tail"] = "</pre><iframe src=https://example.com></iframe>"
    record["candidate"]["path"] = '/tmp/"><b>bold</b>.py'
    record["artifacts"] = {"ptx": {"path": "javascript:alert(1)", "bytes": 1},
                           "jaxpr_dag": {"nodes": [{"id": 0, "primitive": "<script>x</script>"}], "edges": []}}
    records = tmp_path / "records.jsonl"
    records.write_text(json.dumps(record) + "\n")
    out = tmp_path / "report.html"
    assert run_cli(env, "report", tmp_path, "--html", out, timeout=60).returncode == 0
    dom = render(out).stdout
    assert "<title>PallasBench report</title>" in dom
    assert dom.count("<script") == 1 and "<img" not in dom and "<iframe" not in dom and "<b>bold" not in dom
    assert "&lt;script&gt;document.title" in dom
    assert 'href="javascript' not in dom and "javascript:alert(1)" in dom  # shown, never a link
    assert 'data-primitive="&lt;script&gt;x&lt;/script&gt;"' in dom  # the DAG's text stays text


def test_bad_input_is_a_usage_error(env, tmp_path):
    proc = run_cli(env, "report", tmp_path / "absent.jsonl", "--html", tmp_path / "r.html", timeout=60)
    assert proc.returncode == 2 and "cannot read records file" in proc.stderr and "absent.jsonl" in proc.stderr
    corrupt = tmp_path / "corrupt.jsonl"
    corrupt.write_text(H200_RUN.read_text().splitlines()[0] + "\n{not json\n" + "{}\n")
    proc = run_cli(env, "report", corrupt, "--html", tmp_path / "r.html", timeout=60)
    assert proc.returncode == 2 and f"{corrupt}:2: not a JSON record" in proc.stderr
    proc = run_cli(env, "report", H200_RUN, "--html", tmp_path / "no" / "such" / "r.html", timeout=60)
    assert proc.returncode == 2 and "cannot write" in proc.stderr
    assert not (tmp_path / "r.html").exists()


def test_roofline_labels_do_not_overlap(page):
    """Laid out by the browser: each timed point's label, and no two labels' boxes intersect."""
    from browser_pipe import Browser

    browser = Browser()
    try:
        browser.open(page, 1400, 900)
        boxes = browser.evaluate("""[...document.querySelectorAll('#roofline-chart g[id^="roofline-label"] text')]
            .map(t => { const r = t.getBoundingClientRect(); return [t.textContent, r.left, r.top, r.right, r.bottom]; })""")
    finally:
        browser.close()
    points = [r for r in records_of(H200_RUN, CPU_FAILURES) if record_passed(r) and r.get("roofline", {}).get("flops")
              and r["roofline"].get("bytes") and r.get("timing", {}).get("median_us")]
    assert len(boxes) == len(points) > 20
    overlapping = [(a[0], b[0]) for i, a in enumerate(boxes) for b in boxes[i + 1:]
                   if a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5 and a[2] < b[4] - 0.5 and b[2] < a[4] - 0.5]
    assert not overlapping, overlapping[:10]

