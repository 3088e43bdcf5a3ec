"""docs/tasks.md is the task files' specification as `pallasbench list --format markdown` prints it
(python/pallasbench/tools/task_docs.py): it must match what the task files say now."""
import difflib
import shutil
from pathlib import Path

import pytest

from pallasbench.task import registry
from pallasbench.tools import task_docs

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "tasks.md"


@pytest.fixture(scope="module")
def modules():
    return [registry.load(name) for name in sorted(registry.discover())]


@pytest.fixture(scope="module")
def page(modules):
    return task_docs.render(modules)


def test_docs_tasks_md_matches_the_task_files(page):
    on_disk = DOCS.read_text(encoding="utf-8")
    if on_disk != page:
        diff = "".join(list(difflib.unified_diff(on_disk.splitlines(True), page.splitlines(True),
                                                 "docs/tasks.md", "generated", n=1))[:40])
        pytest.fail(f"docs/tasks.md is stale: regenerate it with `{task_docs.REGENERATE}` "
                    f"(or `PYTHONPATH=python .venv/bin/python -m pallasbench.tools.task_docs > docs/tasks.md`)\n{diff}",
                    pytrace=False)


def test_the_page_lists_every_task_with_its_facts(modules, page):
    for module in modules:
        assert f"\n### {module.NAME}\n" in page
    relu = page[page.index("\n### relu\n"):page.index("\n### rmsnorm\n")]
    assert "`kernel(x)`" in relu and "(16384, 16384)" in relu and "`tl.ELEMENTWISE`" in relu
    assert "skips **offset**: no row statistic" in relu and "return jnp.maximum(x, 0.0)" in relu
    assert "| large | 268,435,456 | 2,147,483,648 | 1,073,741,824 |" in relu  # FLOPs, bytes at 4 and 2
    assert "/work" not in page and str(ROOT) not in page  # no absolute path


def test_a_changed_task_file_changes_the_page(tmp_path, modules, page):
    # A copy of relu whose tolerance is tighter: the page made with it must differ from docs/tasks.md,
    # so the check above fails whenever a task file changes and the page is not regenerated.
    copy = tmp_path / "level1" / "relu.py"
    copy.parent.mkdir()
    shutil.copy(ROOT / "tasks" / "level1" / "relu.py", copy)
    text = copy.read_text()
    assert "TOLERANCE = tl.ELEMENTWISE" in text
    copy.write_text(text.replace("TOLERANCE = tl.ELEMENTWISE", "TOLERANCE = tl.Tolerance(2e-6, 1e-5, 1e-5)"))
    changed = registry.import_file(copy, "pallasbench_task_docs_relu_copy")
    registry.validate(changed, registry.TaskFile("relu", 1, copy))
    edited = task_docs.render([changed if m.NAME == "relu" else m for m in modules])
    assert edited != page
    assert "float32 atol 2e-6, rtol 1e-5, rel_norm 1e-5" in edited
    assert "| the task's own | | | | relu (" in edited


def test_a_selection_is_refused_when_it_names_no_task():
    with pytest.raises(task_docs.ToolUsageError, match="categories: .*activation"):
        task_docs.select(1, "no_such_category")
