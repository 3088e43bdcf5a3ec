"""The `verdicts` config of a release: every candidate of tests/adversarial/ and tests/candidates/
with its class, the verdict the project expects of it and where that is stated, and the record
the harness gave it on the GPU where the release's runs hold one (else null, with the reason).

Expectations are read where the tests state them, never restated here: tests/e2e/test_adversarial.py's
tables (CASES, BF16_CASES, and the comment headings that group them), bench/adversarial_gpu.sh's
and bench/containment_gpu.sh's case tables, docs/writing_candidates.md's candidate markers; a
candidate none of them names takes its entry from the manifest's `expectations` (with its
`stated_in`). The files are parsed (ast, regular expressions), never imported or run."""
from __future__ import annotations

import ast
import hashlib
import re
from pathlib import Path

from pallasbench.tools import ToolUsageError
from pallasbench.tools.records import passed

TEST = "tests/e2e/test_adversarial.py"
GPU_SCRIPT = "bench/adversarial_gpu.sh"
CONTAINMENT_SCRIPT = "bench/containment_gpu.sh"
GUIDE = "docs/writing_candidates.md"
CORPORA = ("tests/adversarial", "tests/candidates")


def _assignments(tree: ast.Module) -> dict[str, ast.Assign]:
    return {t.id: n for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}


def _comments(lines: list[str], start: int, end: int) -> list[str]:
    """The comment lines between two line numbers (1-based, exclusive), without their '#'."""
    return [line.strip()[1:].strip() for line in lines[start:end - 1] if line.strip().startswith("#")]


def _heading(comment: str) -> str | None:
    """'---- degenerate ----' -> 'degenerate'; a sub-heading '(a) copy kernels. ...' -> 'copy kernels'."""
    if comment.startswith("----"):
        return comment.strip("- ").strip()
    match = re.match(r"\(([a-z])\) ([^.]+)", comment)
    return match.group(2).strip() if match else None


def adversarial_table(root: Path, name: str, dtype: str) -> list[dict]:
    """One expectation per case of the test's table `name`, with the class its heading gives."""
    text = (root / TEST).read_text()
    lines = text.splitlines()
    node = _assignments(ast.parse(text))[name]
    section, sub, previous = f"{dtype} tier", None, node.lineno
    out = []
    for element in node.value.elts:
        comments = _comments(lines, previous, element.lineno)
        notes = []
        for comment in comments:
            heading = _heading(comment)
            if comment.startswith("----"):
                section, sub = heading, None
                continue
            if heading:
                sub = heading
            notes.append(comment)
        file, task, status, robust, _failing = ast.literal_eval(element)
        kind = f"{section}: {sub}" if sub else section
        out.append({"candidate": f"tests/adversarial/{file}", "task": task, "dtype": dtype, "size": "small",
                    "class": kind, "note": " ".join(notes) or None, "expected_status": [status],
                    "expected_robust": robust, "stated_in": f"{TEST}:{element.lineno}"})
        previous = element.end_lineno
    return out


def gpu_table(root: Path) -> dict[str, dict]:
    """bench/adversarial_gpu.sh's cases: file -> (status, robust, size, line)."""
    lines = (root / GPU_SCRIPT).read_text().splitlines()
    table = {}
    for number, line in enumerate(lines, 1):
        match = re.match(r'^\s+"(\S+\.py) (\w+) (\w+) (true|false)(?: (\S+))?', line)
        if match:
            file, task, status, robust, size = match.groups()
            table[file] = {"task": task, "status": [status], "robust": robust == "true",
                           "size": "small" if size in (None, "-") else size, "stated_in": f"{GPU_SCRIPT}:{number}"}
    return table


def listed_only(root: Path, name: str, gpu: dict[str, dict]) -> list[dict]:
    """Cases the test names only in a list (TIMING_CASES, GPU_ONLY): their verdicts are the GPU script's."""
    text = (root / TEST).read_text()
    node = _assignments(ast.parse(text))[name]
    note = " ".join(_comments(text.splitlines(), node.lineno - 3, node.lineno + 1)) or None
    out = []
    for file in ast.literal_eval(node.value):
        if file not in gpu:
            raise ToolUsageError(f"{TEST}: {name} names {file}, which {GPU_SCRIPT}'s table lacks")
        g = gpu[file]
        out.append({"candidate": f"tests/adversarial/{file}", "task": g["task"], "dtype": "float32", "size": g["size"],
                    "class": name.lower().replace("_", " "), "note": note, "expected_status": g["status"],
                    "expected_robust": g["robust"], "stated_in": g["stated_in"]})
    return out


def _docstring_class(root: Path, candidate: str, accepted: bool, row_status) -> tuple[str, str | None]:
    """A tests/candidates file's class from its docstring's own word ('Hostile (containment): ...')."""
    doc = ast.get_docstring(ast.parse((root / candidate).read_text())) or ""
    first = doc.split(". ")[0].replace("\n", " ")
    match = re.match(r"(Hostile|Honest)( \([^)]*\))?:", doc)
    if match:
        return match.group(0)[:-1].lower(), first
    if row_status is None:
        return "not classed (no verdict stated)", first
    return ("honest" if accepted else "honest kernel breaking a backend rule"), first


def candidate_tables(root: Path, manifest: dict) -> list[dict]:
    out = []
    guide = (root / GUIDE).read_text()
    for match in re.finditer(r"<!-- candidate: (\S+) task: (\w+) expect: (\w+) -->", guide):
        path, task, status = match.groups()
        out.append({"candidate": path, "task": task, "dtype": "float32", "size": "small", "expected_status": [status],
                    "expected_robust": status == "ok",
                    "stated_in": f"{GUIDE}:{guide.count(chr(10), 0, match.start()) + 1}"})
    script = (root / CONTAINMENT_SCRIPT).read_text().splitlines()
    seen = set()
    for number, line in enumerate(script, 1):
        match = re.match(r'^\s+"[\w-]+ (\w+) \$hostile/(\S+\.py) ([\w|]+) ', line)
        if match and match.group(2) not in seen:
            seen.add(match.group(2))
            out.append({"candidate": f"tests/candidates/containment/{match.group(2)}", "task": match.group(1),
                        "dtype": "float32", "size": None, "expected_status": match.group(3).split("|"),
                        "expected_robust": False, "stated_in": f"{CONTAINMENT_SCRIPT}:{number}"})
    for entry in manifest.get("expectations", []):
        out.append({"candidate": entry["candidate"], "task": entry["task"], "dtype": "float32",
                    "size": entry.get("size"), "expected_status": entry.get("expected_status"),
                    "expected_robust": entry.get("expected_robust"), "stated_in": entry["stated_in"]})
    for row in out:
        accepted = row["expected_status"] == ["ok"] and row["expected_robust"] is True
        row["class"], row["note"] = _docstring_class(root, row["candidate"], accepted, row["expected_status"])
    return out


def expectations(root: Path, manifest: dict) -> list[dict]:
    """Every expectation row; every corpus file must have one, and no (file, dtype) two."""
    gpu = gpu_table(root)
    rows = adversarial_table(root, "CASES", "float32") + adversarial_table(root, "BF16_CASES", "bfloat16")
    rows += listed_only(root, "TIMING_CASES", gpu) + listed_only(root, "GPU_ONLY", gpu)
    rows += candidate_tables(root, manifest)
    keys = [(r["candidate"], r["dtype"]) for r in rows]
    doubled = sorted({k for k in keys if keys.count(k) > 1})
    files = {str(p.relative_to(root)) for corpus in CORPORA for p in (root / corpus).rglob("*.py")}
    unlisted = sorted(files - {r["candidate"] for r in rows})
    if doubled or unlisted:
        raise ToolUsageError(f"verdicts: corpus files with no stated expectation {unlisted} (add them to the "
                             f"manifest's expectations with stated_in), or listed twice {doubled}")
    for row in rows:
        g = gpu.get(Path(row["candidate"]).name) if row["candidate"].startswith("tests/adversarial/") else None
        on_gpu = g is not None and row["dtype"] == "float32"
        row.update({"gpu_expected_status": g["status"] if on_gpu else None,
                    "gpu_expected_robust": g["robust"] if on_gpu else None,
                    "gpu_expected_size": g["size"] if on_gpu else None,
                    "gpu_stated_in": g["stated_in"] if on_gpu else None})
    return sorted(rows, key=lambda r: (r["candidate"], r["dtype"]))


def _gpu_fields(record: dict | None, source: str, reason: str | None) -> dict:
    if record is None:
        return {"gpu_status": None, "gpu_robustness_passed": None, "gpu_passed": None, "gpu_on_expectation": None,
                "gpu_error": None, "gpu_failed_filters": None, "gpu_size": None, "gpu_name": None, "gpu_run_id": None,
                "gpu_record_uuid": None, "gpu_records_file": None, "gpu_source_matches": None,
                "gpu_missing_reason": reason}
    result = record.get("result") if isinstance(record.get("result"), dict) else {}
    filters = result.get("filters") if isinstance(result.get("filters"), dict) else {}
    error = record.get("error") if isinstance(record.get("error"), dict) else {}
    candidate = record.get("candidate") if isinstance(record.get("candidate"), dict) else {}
    return {"gpu_status": record.get("status"), "gpu_robustness_passed": result.get("robustness_passed"),
            "gpu_passed": passed(record), "gpu_on_expectation": None, "gpu_error": error.get("message"),
            "gpu_failed_filters": sorted(n for n, f in filters.items() if isinstance(f, dict) and f.get("passed") is False),
            "gpu_size": record.get("size"), "gpu_name": (record.get("environment") or {}).get("gpu_name"),
            "gpu_run_id": record.get("run_id"), "gpu_record_uuid": record.get("uuid"),
            "gpu_records_file": record["_records_file"],
            "gpu_source_matches": candidate.get("sha256") == hashlib.sha256(source.encode()).hexdigest(),
            "gpu_missing_reason": None}


def rows(root: Path, manifest: dict, records: list[dict], binary: str) -> list[dict]:
    """The expectation rows, each with its GPU record: the one record of the release's verdict
    runs whose candidate file, dtype and size (where the expectation names one) are the row's."""
    out = []
    for row in expectations(root, manifest):
        size = row["gpu_expected_size"] or row["size"]
        found = [r for r in records if (r.get("candidate") or {}).get("path") == row["candidate"]
                 and r.get("dtype") == row["dtype"] and (size is None or r.get("size") == size)]
        if len(found) > 1:
            raise ToolUsageError(f"verdicts: {len(found)} records of {row['candidate']} at {row['dtype']} "
                                 f"{size or ''} in the manifest's runs ({', '.join(r['_records_file'] for r in found)}); "
                                 "name one run per candidate")
        source = (root / row["candidate"]).read_text()
        reason = None if found else (f"no GPU record of this candidate at {row['dtype']}" + (f", {size}" if size else "")
                                     + f" in the release's runs (binary {binary[:12]})")
        row.update({"corpus": str(Path(row["candidate"]).parent), "source": source,
                    "source_sha256": hashlib.sha256(source.encode()).hexdigest()})
        row.update(_gpu_fields(found[0] if found else None, source, reason))
        if found:
            status = row["gpu_expected_status"] or row["expected_status"]
            robust = row["gpu_expected_robust"] if row["gpu_expected_status"] else row["expected_robust"]
            row["gpu_on_expectation"] = (None if status is None else
                                         row["gpu_status"] in status and row["gpu_robustness_passed"] is robust)
        out.append(row)
    return out


def features():
    """The config's columns, typed once (gpu_* are all null where no GPU record exists yet)."""
    from datasets import Features, List, Value

    text, flag, texts = Value("string"), Value("bool"), List(Value("string"))
    columns = {"candidate": text, "corpus": text, "task": text, "dtype": text, "size": text, "class": text,
               "note": text, "expected_status": texts, "expected_robust": flag, "stated_in": text,
               "gpu_expected_status": texts, "gpu_expected_robust": flag, "gpu_expected_size": text,
               "gpu_stated_in": text, "source": text, "source_sha256": text, "gpu_status": text,
               "gpu_robustness_passed": flag, "gpu_passed": flag, "gpu_on_expectation": flag, "gpu_error": text,
               "gpu_failed_filters": texts, "gpu_size": text, "gpu_name": text, "gpu_run_id": text,
               "gpu_record_uuid": text, "gpu_records_file": text, "gpu_source_matches": flag,
               "gpu_missing_reason": text}
    return Features(columns)
