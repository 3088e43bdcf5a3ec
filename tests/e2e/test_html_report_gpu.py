"""`report --html` of committed GPU records (bench/results/2026-12-06-h200-backends: both backends
at two dtypes, and candidates with a Mosaic GPU compile error), laid out by headless Chromium at 1280x800 and
1920x1080 (driven over its DevTools pipe: browser_pipe.py): every column header is visible without
overflow, a task's section opens from the table and holds its PTX excerpt and jaxpr DAG, a
compile error's traceback is there, the seeds are said once. With PALLASBENCH_SCREENSHOTS=DIR the
screenshots are written there (bench/results/2026-12-06-report/README.md)."""
import gzip
import json
import os
from pathlib import Path

import pytest

from browser_pipe import Browser
from e2e_support import ROOT, run_cli

BACKENDS = ROOT / "bench" / "results" / "2026-12-06-h200-backends" / "call_1"
# Three tasks of a GPU run of both backends at float32 and bfloat16 (Triton's records carry their
# PTX inline), and the candidates run beside it (one a Mosaic GPU compile error).
GPU_RECORDS = (BACKENDS / "medium_f32.records.jsonl.gz", BACKENDS / "medium_bf16.records.jsonl.gz",
               BACKENDS / "candidates.records.jsonl.gz")
TASKS = {"softmax", "relu", "layernorm"}
VIEWPORTS = ((1280, 800), (1920, 1080))

HEADERS = """(() => {
  const box = document.getElementById("tasks-box").getBoundingClientRect();
  return [...document.querySelectorAll("#tasks th")].map(th => {
    const r = th.getBoundingClientRect();
    return {text: th.textContent, left: r.left, right: r.right, box_left: box.left, box_right: box.right,
            inner: innerWidth, clipped: th.scrollWidth > th.clientWidth};
  });
})()"""


@pytest.fixture(scope="module")
def page(env, tmp_path_factory):
    folder = tmp_path_factory.mktemp("gpu_report")
    inputs = []
    for path in GPU_RECORDS:
        plain = folder / path.name.removesuffix(".gz")
        lines = gzip.decompress(path.read_bytes()).decode().splitlines(keepends=True)
        plain.write_text("".join(line for line in lines if json.loads(line)["kernel_name"] in TASKS))
        inputs.append(plain)
    out = folder / "report.html"
    proc = run_cli(env, "report", *inputs, "--html", out, timeout=180)
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.fixture(scope="module")
def browser():
    opened = Browser()
    yield opened
    opened.close()


def shots() -> Path | None:
    folder = os.environ.get("PALLASBENCH_SCREENSHOTS")
    return Path(folder) if folder else None


@pytest.mark.parametrize("width,height", VIEWPORTS)
def test_every_column_header_is_visible_without_overflow(page, browser, width, height):
    browser.open(page, width, height)
    heads = browser.evaluate(HEADERS)
    assert len(heads) == 15 and heads[-1]["text"] == "tensor core"
    for head in heads:
        assert head["box_left"] - 0.5 <= head["left"] and head["right"] <= head["box_right"] + 0.5, head
        assert head["right"] <= head["inner"] and not head["clipped"], head
    if shots():
        browser.evaluate('document.getElementById("tasks").scrollIntoView()')
        browser.screenshot(shots() / f"tasks_{width}x{height}.png")


def test_a_tasks_section_opens_from_the_table_with_its_ptx_and_dag(page, browser):
    browser.open(page, 1280, 800)
    assert browser.evaluate('document.getElementById("task-softmax").open') is False
    browser.evaluate('document.querySelector(\'#tasks a[href="#task-softmax"]\').click()')
    section = 'document.getElementById("task-softmax")'
    assert browser.evaluate(f"{section}.open") is True
    ptx = browser.evaluate(f'{section}.querySelector("pre.ptx-text").textContent')
    assert ".version" in ptx and ".entry" in ptx and "more lines" in ptx
    browser.evaluate(f'{section}.querySelector("details.ptx > summary").click()')
    assert browser.evaluate(f'{section}.querySelector("pre.ptx-text").offsetHeight') > 100
    record = f'{section}.querySelector("pre.ptx-text").closest("section.record")'
    assert browser.evaluate(f'{record}.querySelector(".compiler-summary").textContent').startswith("registers")
    nodes = browser.evaluate(f'[...{section}.querySelectorAll("svg.dag g.node")].map(g => g.dataset.primitive)')
    assert "pallas_call" in nodes and "input" in nodes
    assert browser.evaluate(f'{section}.querySelector("svg.dag").getBoundingClientRect().height') > 30
    filters = browser.evaluate(f'{section}.querySelector("table.filters").textContent')
    assert "source_analysis" in filters and "<= 0.05" in filters
    # Mosaic GPU and Triton, float32 and bfloat16 side by side in the task's plot.
    legend = browser.evaluate(f'{section}.querySelector(".sizes-chart svg").textContent')
    assert all(name in legend for name in ("mosaic_gpu float32", "triton float32", "triton bfloat16"))
    seeds = browser.evaluate(f'[...{section}.querySelectorAll("h5")].map(h => h.textContent)')
    assert {"Seeds", "Stress cases", "Filters", "Compiler", "jaxpr DAG"} <= set(seeds)
    if shots():
        browser.evaluate(f'{section}.scrollIntoView()')
        browser.screenshot(shots() / "task_softmax_1280x800.png")
        browser.evaluate(f'{record}.querySelector("details.ptx").scrollIntoView()')
        browser.screenshot(shots() / "task_softmax_ptx_dag_1280x800.png")


def test_a_compile_error_shows_its_traceback_and_the_seeds_are_said_once(page, browser):
    browser.open(page, 1920, 1080, "#task-softmax")
    section = 'document.getElementById("task-softmax")'
    assert browser.evaluate(f"{section}.open") is True
    traceback = browser.evaluate(f'{section}.querySelector("pre.traceback").textContent')
    assert traceback.startswith("Traceback (most recent call last)") and "shared memory" in traceback
    failures = browser.evaluate('[...document.querySelectorAll(".failure pre.traceback")].map(p => p.textContent)')
    assert len(failures) == 2 and all(t.startswith("Traceback (most recent call last)") for t in failures)
    run_rows = browser.evaluate('[...document.querySelectorAll("h2 + table th")].map(th => th.textContent)')
    assert run_rows.count("seeds") == 1
