"""Kernel source files as the trusted reference process reads them for the record: decoded as
Python decodes them, hashed, bundled with the shared kernel modules they import, and refused
(unrun) when too large or undecodable. Never read by the process that imports the file: a
candidate can spoof its own __file__."""

from __future__ import annotations

import ast
import difflib
import functools
import hashlib
import io
import tokenize
from pathlib import Path

KERNELS_DIR = Path(__file__).parent.parent / "kernels"  # pallasbench.kernels
DEFAULT_MAX_SOURCE_BYTES = 1 << 20  # the harness's --max-source-bytes default too


# Memoised by the text itself: describe bundles 69 task files that share a few kernel modules
# (tiled_matmul alone under 16 tasks), and parsing each module once per file instead of once per
# task took a whole-suite describe from 328 parses to about 90 (1.25 -> 0.3 s on the CI machine,
# paid by every CLI command that opens a session). A changed file is a new text, parsed again.
@functools.lru_cache(maxsize=512)
def _kernel_imports(source: str, inside_kernels: bool = False) -> frozenset[str]:
    """The pallasbench.kernels.* modules one source imports, read from its syntax tree
    (inside_kernels: the source is one of them, so its relative imports name them too)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return frozenset()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            if inside_kernels and node.level == 1:
                names |= {node.module.split(".")[0]} if node.module else {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "pallasbench.kernels":
                names |= {a.name for a in node.names}
            elif node.module.startswith("pallasbench.kernels."):
                names.add(node.module.split(".")[2])
        elif isinstance(node, ast.Import):
            names |= {a.name.split(".")[2] for a in node.names if a.name.startswith("pallasbench.kernels.")}
    return frozenset(names)


def kernel_modules_used(source: str) -> list[str]:
    """The shared kernel modules (pallasbench.kernels.*) a source runs: those it imports and,
    transitively, those they import; sorted by name, each once. Read from syntax trees:
    nothing of it runs here."""
    found: set[str] = set()
    pending = set(_kernel_imports(source))
    while pending:
        name = pending.pop()
        path = KERNELS_DIR / f"{name}.py"
        if name in found or not path.is_file():
            continue
        found.add(name)
        pending |= _kernel_imports(path.read_text(), inside_kernels=True)
    return sorted(found)


def bundled_source(source: str) -> str:
    """The kernel file followed by every shared kernel module it runs (kernel_modules_used), so
    a record's triton_code holds every line of the kernel."""
    parts = [source]
    for name in kernel_modules_used(source):
        parts.append(f"\n# ---- pallasbench.kernels.{name} ----\n" + (KERNELS_DIR / f"{name}.py").read_text())
    return "".join(parts)


def decode_source(data: bytes) -> tuple[str, str]:
    """(text, encoding) as Python itself decodes a source file: a BOM or a PEP 263 coding line,
    else UTF-8. Raises SyntaxError (as Python would) when the bytes do not decode."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    try:
        return data.decode(encoding), encoding  # no newline translation: the text is the file
    except (UnicodeDecodeError, LookupError) as exc:
        raise SyntaxError(f"the source does not decode as {encoding} (its declared or default encoding): {exc}")


def source_facts(path: Path, max_bytes: int = DEFAULT_MAX_SOURCE_BYTES) -> dict:
    """What the record says of a kernel file. A file over max_bytes is refused unread, one that
    does not decode is refused as Python would refuse it; either way "refused" says why and
    nothing of it runs."""
    size = path.stat().st_size
    if size > max_bytes:
        with open(path, "rb") as f:  # hashed in blocks, never held whole
            sha256 = hashlib.file_digest(f, "sha256").hexdigest()
        return {"sha256": sha256, "source": "", "bundled_source": "", "encoding": "", "bytes": size,
                "refused": f"{path.name} is {size} bytes, over the limit of {max_bytes} (--max-source-bytes): "
                           f"refused unread"}
    data = path.read_bytes()
    facts = {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
    try:
        text, encoding = decode_source(data)
    except SyntaxError as exc:
        text = data.decode("utf-8", errors="replace")
        return facts | {"source": text, "bundled_source": text, "encoding": "",
                        "refused": f"{path.name}: {exc}"}
    return facts | {"source": text, "bundled_source": bundled_source(text), "encoding": encoding}


def unified_diff(task_source: str, candidate_source: str, task_file: str) -> str:
    """The record's `diff`: from the suite's task file to the candidate, unified with 3 lines of
    context ("" when they are the same text)."""
    def lines(text: str) -> list[str]:
        return [line if line.endswith("\n") else line + "\n" for line in text.splitlines(keepends=True)]

    return "".join(difflib.unified_diff(lines(task_source), lines(candidate_source), task_file, "candidate"))
