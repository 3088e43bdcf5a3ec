"""The `ports` config of a release: per task with records of both backends, the Triton kernel's
source (`source_original`), the Mosaic GPU kernel's (`source_fixed`) and their unified diff, with
both records' verdicts and speeds.

The sources are cut from what ran: a suite record's `triton_code` is the task file followed by
every pallasbench.kernels module it imports (worker/sources.py bundled_source). A backend's code
is what its entry in the task's `BACKENDS` table reaches by static reference (a name, a
`module.name`, a `from .module import name`), transitively, through the task file and the bundled
modules: the top-level definitions so reached, in file order, under their module's name. Nothing
is imported or run; a definition reached only dynamically (getattr, a string) is missed."""
from __future__ import annotations

import ast
import difflib
import hashlib
import re
from dataclasses import dataclass, field

from pallasbench.tools import ToolUsageError
from pallasbench.tools.records import passed, speedup

SECTION = re.compile(r"\n# ---- pallasbench\.kernels\.(\w+) ----\n")
ORIGINAL, FIXED = "triton", "mosaic_gpu"
TASK = "<task>"  # the task file's section


@dataclass
class Module:
    name: str
    lines: list[str]
    definitions: dict[str, ast.stmt] = field(default_factory=dict)  # top-level name -> its statement
    modules: dict[str, str] = field(default_factory=dict)  # local alias -> a bundled kernels module
    imported: dict[str, tuple[str, str]] = field(default_factory=dict)  # alias -> (module, name)


def _bound_names(node: ast.stmt) -> list[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
    return [n.id for t in targets if t is not None for n in ast.walk(t) if isinstance(n, ast.Name)]


def _note_import(module: Module, node: ast.ImportFrom, known: set[str]) -> None:
    """`from pallasbench.kernels import x`, `from pallasbench.kernels.x import y`, and inside a
    kernels module `from . import x` / `from .x import y`."""
    source = node.module or ""
    if node.level == 1 or source == "pallasbench.kernels":
        package_member = node.module if node.level == 1 else None
    elif source.startswith("pallasbench.kernels."):
        package_member = source.split(".")[2]
    else:
        return
    for alias in node.names:
        local = alias.asname or alias.name
        if package_member is None and alias.name in known:
            module.modules[local] = alias.name
        elif package_member in known:
            module.imported[local] = (package_member, alias.name)


def parse_bundle(bundle: str, where: str) -> dict[str, Module]:
    """The bundle's sections (task file first), each parsed; a section that does not parse is an
    error naming the record."""
    parts = SECTION.split(bundle)
    texts = {TASK: parts[0], **{parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)}}
    modules = {}
    for name, text in texts.items():
        try:
            tree = ast.parse(text)
        except SyntaxError as e:
            raise ToolUsageError(f"{where}: the bundled source of {name} does not parse ({e})") from e
        module = Module(name, text.splitlines(keepends=True))
        for node in tree.body:
            if isinstance(node, ast.ImportFrom):
                _note_import(module, node, set(texts) - {TASK})
            for bound in _bound_names(node):
                module.definitions.setdefault(bound, node)
        modules[name] = module
    return modules


def references(node: ast.AST, module: Module) -> set[tuple[str, str]]:
    """(module, name) of each top-level definition `node` names."""
    found = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id in module.modules:
            found.add((module.modules[sub.value.id], sub.attr))
        elif isinstance(sub, ast.Name):
            if sub.id in module.imported:
                found.add(module.imported[sub.id])
            elif sub.id in module.definitions:
                found.add((module.name, sub.id))
    return found


def backend_entry(task: Module, backend: str, where: str) -> ast.expr:
    node = task.definitions.get("BACKENDS")
    if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict):
        for key, value in zip(node.value.keys, node.value.values):
            if isinstance(key, ast.Constant) and key.value == backend:
                return value
    raise ToolUsageError(f"{where}: the task file's BACKENDS has no {backend!r} entry")


def backend_source(modules: dict[str, Module], backend: str, where: str) -> str:
    """The top-level definitions the backend's entry reaches, by module in bundle order."""
    pending = references(backend_entry(modules[TASK], backend, where), modules[TASK])
    reached: dict[str, set[int]] = {}
    seen = set()
    while pending:
        name = pending.pop()
        if name in seen or name[0] not in modules or name[1] not in modules[name[0]].definitions:
            continue
        seen.add(name)
        module = modules[name[0]]
        node = module.definitions[name[1]]
        reached.setdefault(module.name, set()).add(id(node))
        pending |= references(node, module)
    parts = []
    for module in modules.values():
        nodes = [n for n in dict.fromkeys(module.definitions.values()) if id(n) in reached.get(module.name, ())]
        if not nodes:
            continue
        title = "the task file" if module.name == TASK else f"pallasbench.kernels.{module.name}"
        body = ["".join(module.lines[_first_line(n) - 1:n.end_lineno]) for n in sorted(nodes, key=_first_line)]
        parts.append(f"# ---- {title} ----\n" + "\n".join(b.rstrip("\n") + "\n" for b in body))
    return "\n".join(parts)


def _first_line(node: ast.stmt) -> int:
    decorators = getattr(node, "decorator_list", [])
    return min([node.lineno] + [d.lineno for d in decorators])


def run_result(record: dict | None) -> dict:
    if record is None:
        return {"status": None, "passed": None, "speedup": None, "median_us": None, "uuid": None}
    timing = record.get("timing") if isinstance(record.get("timing"), dict) else {}
    return {"status": record.get("status"), "passed": passed(record), "speedup": speedup(record),
            "median_us": timing.get("median_us"), "uuid": record.get("uuid")}


def sources(task: str, records: list[dict]) -> tuple[str | None, str | None, str | None, str | None]:
    """(original, fixed, diff, note) from the records' bundled source. The note says why a source
    is missing or unverified; the tree is never read instead (it is exact only at the records'
    own commit, and the record is what ran)."""
    where = f"suite records of {task}"
    bundles = {r.get("triton_code") or "" for r in records}
    if len(bundles) != 1:
        raise ToolUsageError(f"{where}: {len(bundles)} different bundled sources; a port needs the one code that ran")
    bundle = bundles.pop()
    if not bundle:
        return None, None, None, "the records hold no bundled source (triton_code): no port source"
    modules = parse_bundle(bundle, where)
    original, fixed = (backend_source(modules, b, where) for b in (ORIGINAL, FIXED))
    diff = "".join(difflib.unified_diff(original.splitlines(keepends=True), fixed.splitlines(keepends=True),
                                        fromfile=f"{task} ({ORIGINAL})", tofile=f"{task} ({FIXED})"))
    task_file = SECTION.split(bundle)[0].encode()
    exact = hashlib.sha256(task_file).hexdigest() == records[0].get("task_sha256")
    return original, fixed, diff, None if exact else "the bundled task file does not hash to the record's task_sha256"


def port_row(task: str, records: list[dict]) -> dict:
    """One task's row from its suite records (already checked to be of one commit)."""
    first = records[0]
    original, fixed, diff, note = sources(task, records)
    by_run: dict[tuple, dict[str, dict]] = {}
    for r in records:
        by_run.setdefault((r.get("size"), r.get("dtype")), {})[r.get("backend")] = r
    runs = []
    for (size, dtype), pair in sorted(by_run.items(), key=lambda kv: (str(kv[0][0]), str(kv[0][1]))):
        runs.append({"size": size, "dtype": dtype, ORIGINAL: run_result(pair.get(ORIGINAL)),
                     FIXED: run_result(pair.get(FIXED))})
    return {"kernel_name": task, "level": first.get("level"), "category": first.get("category"),
            "task_sha256": first.get("task_sha256"), "original_backend": ORIGINAL, "fixed_backend": FIXED,
            "source_original": original, "source_fixed": fixed, "diff": diff, "source_note": note,
            "both_passed": all(run[ORIGINAL]["passed"] and run[FIXED]["passed"] for run in runs), "runs": runs}


def rows(suite: list[dict]) -> list[dict]:
    """A row for every task whose suite records hold both backends, by task name."""
    by_task: dict[str, list[dict]] = {}
    for record in suite:
        by_task.setdefault(record["kernel_name"], []).append(record)
    both = [t for t, rs in by_task.items() if {ORIGINAL, FIXED} <= {r.get("backend") for r in rs}]
    return [port_row(task, by_task[task]) for task in sorted(both)]


def features():
    """The config's columns, typed once (a column all null in one release is still a string)."""
    from datasets import Features, Value

    result = {"status": Value("string"), "passed": Value("bool"), "speedup": Value("float64"),
              "median_us": Value("float64"), "uuid": Value("string")}
    text = Value("string")
    return Features({"kernel_name": text, "level": Value("int64"), "category": text, "task_sha256": text,
                     "original_backend": text, "fixed_backend": text, "source_original": text, "source_fixed": text,
                     "diff": text, "source_note": text, "both_passed": Value("bool"),
                     "runs": [{"size": text, "dtype": text, ORIGINAL: result, FIXED: result}]})
