"""`pallasbench filters`: the registry as data (JSON), as text, and as the table docs/filters.md
holds, which must be the binary's own (regenerate it with `build/pallasbench filters --format
markdown` when a filter changes)."""
import json
import re
from pathlib import Path

from e2e_support import run_cli

DOC = Path(__file__).resolve().parents[2] / "docs" / "filters.md"
BEGIN = "<!-- filters table: `pallasbench filters --format markdown` -->\n"
END = "<!-- end of filters table -->\n"


def output(env, *args) -> str:
    proc = run_cli(env, "filters", *args, timeout=30)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_docs_table_is_the_registrys(env):
    text = DOC.read_text()
    assert text.count(BEGIN) == 1 and text.count(END) == 1, f"{DOC} lacks the generated table's markers"
    in_doc = text.split(BEGIN)[1].split(END)[0]
    assert in_doc == output(env, "--format", "markdown"), (
        "docs/filters.md's table differs from the registry: paste `build/pallasbench filters --format markdown` "
        "between its markers")


def test_json_text_and_markdown_list_the_same_filters(env):
    described = json.loads(output(env, "--format", "json"))
    names = [d["name"] for d in described]
    assert names and len(set(names)) == len(names)
    assert {tuple(sorted(d)) for d in described} == {
        ("checks", "direction", "name", "threshold", "threshold_varies_with")}
    assert re.findall(r"^\| `(\w+)` \|", output(env, "--format", "markdown"), re.M) == names
    text = output(env)
    assert [line.split()[0] for line in text.splitlines()[1:-1]] == names
    assert text.endswith(f"{len(names)} filters\n")


def test_an_unknown_format_is_a_usage_error(env):
    proc = run_cli(env, "filters", "--format", "yaml", timeout=30)
    assert proc.returncode == 2 and "yaml" in proc.stderr
