"""Local paths out of a released dataset's rows. A record names the machine it ran on: the
checkout's folder (`candidate.path`, `module_name`, tracebacks), the Python installation
(tracebacks), the cgroup and scratch folders (`trust`, error messages). A release holds none of
them: each is rewritten to a path relative to the repository or to a placeholder (`<site-packages>/`,
`<python-stdlib>/`, `<cgroup>`, `<tmp>/`, `<shm>/`), and every string of every row is then checked,
sources included, so a path no rule knows fails the build by name instead of shipping."""
from __future__ import annotations

import re

from pallasbench.tools import ToolUsageError

# Code as it ran: never rewritten (that would change the kernel), only checked.
SOURCE_FIELDS = frozenset({"source_original", "source_fixed", "triton_code", "python_code", "diff", "source"})

# A path's first slash: not one inside a word, a URL or a placeholder; after an escaped byte of
# an MLIR string (`\\00/opt/...`: Triton IR's location table inside `stablehlo`) it is one.
_START = r"(?:(?<=\\[0-9A-Fa-f]{2})|(?<![\w.+@/<>-]))"
_PART = r"[\w.+@-]+"
PLACEHOLDERS = (
    (re.compile(_START + rf"/(?:{_PART}/)*lib/python3(?:\.\d+)?/(?:site|dist)-packages/"), "<site-packages>/"),
    (re.compile(_START + rf"/(?:{_PART}/)*lib/python3(?:\.\d+)?/"), "<python-stdlib>/"),
    (re.compile(_START + rf"/sys/fs/cgroup(?:/{_PART})*"), "<cgroup>"),
    (re.compile(_START + rf"/tmp/(?={_PART})"), "<tmp>/"),
    (re.compile(_START + rf"/dev/shm/(?={_PART})"), "<shm>/"),
)
# What a local path looks like: a folder of one machine (a home, a checkout, an install, a temp
# file, a cgroup). Bare mount points named in prose ("a tmpfs for /tmp and /dev/shm") are not.
_MACHINE = (r"/(?:work|home|root|opt|mnt|scratch|srv|data|Users|private|var/tmp|usr/local|usr/lib/python|"
            r"sys/fs/cgroup)/|site-packages/|dist-packages/")
_ANY = r"(?:" + _MACHINE + r"|/tmp/[\w.+@-]|/dev/shm/[\w.+@-])"
LOCAL = re.compile(_START + _ANY)
MAYBE_LOCAL = re.compile(_ANY)  # the same without the look-behind: a tenth of the time, so tried first
# In code, /tmp/... and /dev/shm/... are what the code names (a hostile candidate's glob), not where it ran.
LOCAL_IN_SOURCE = re.compile(_START + r"(?:" + _MACHINE + r")")


CORPUS_FILE = re.compile(r"^(/.+)/tests/(?:adversarial|candidates)/[^/]+(?:/[^/]+)?\.py$")


def checkout_roots(records: list[dict]) -> list[str]:
    """The folders the runs' checkouts were in: a suite record's `candidate.path` is the root
    followed by its module's path (tasks/level1/add.py for tasks.level1.add), a corpus
    candidate's the root followed by tests/adversarial/ or tests/candidates/. Longest first."""
    roots = set()
    for record in records:
        candidate = record.get("candidate") if isinstance(record.get("candidate"), dict) else {}
        path, module = candidate.get("path"), record.get("module_name")
        if not isinstance(path, str) or not path.startswith("/"):
            continue
        if candidate.get("kind") == "suite" and isinstance(module, str):
            tail = "/" + module.replace(".", "/") + ".py"
            if path.endswith(tail) and len(path) > len(tail):
                roots.add(path[: -len(tail)])
        elif CORPUS_FILE.match(path):
            roots.add(CORPUS_FILE.match(path).group(1))
    return sorted(roots, key=len, reverse=True)


def relative(text: str, roots: list[str]) -> str:
    """`text` with every local path rewritten: the checkout's folder dropped (repository-relative
    paths), the rest to placeholders."""
    for root in roots:
        text = text.replace(root + "/", "")
    for pattern, placeholder in PLACEHOLDERS:
        text = pattern.sub(placeholder, text)
    return text


def rewrite(value, roots: list[str], field: str = ""):
    """A row (any nesting) with every string but the sources made relative."""
    if isinstance(value, dict):
        return {k: rewrite(v, roots, k) for k, v in value.items()}
    if isinstance(value, list):
        return [rewrite(v, roots, field) for v in value]
    if isinstance(value, str) and field not in SOURCE_FIELDS:
        return relative(value, roots)
    return value


def local_paths(value, where: str = "", field: str = "") -> list[tuple[str, str]]:
    """(field path, the path found) of every string that holds a local path, at any depth."""
    if isinstance(value, dict):
        return [hit for k, v in value.items() for hit in local_paths(v, f"{where}.{k}" if where else k, k)]
    if isinstance(value, list):
        return [hit for i, v in enumerate(value) for hit in local_paths(v, f"{where}[{i}]", field)]
    if isinstance(value, str):
        match = MAYBE_LOCAL.search(value) and (LOCAL_IN_SOURCE if field in SOURCE_FIELDS else LOCAL).search(value)
        if match:
            return [(where, value[max(0, match.start() - 20): match.end() + 60])]
    return []


def check_rows(config: str, rows: list[dict], key) -> None:
    """Refuses a release whose rows hold a local path, naming config, row, field and the text."""
    problems = [f"{config} row {key(row)}: {field}: ...{text}..." for row in rows for field, text in local_paths(row)]
    if problems:
        shown = "\n  ".join(problems[:20]) + (f"\n  ... and {len(problems) - 20} more" if len(problems) > 20 else "")
        raise ToolUsageError(f"{len(problems)} local path(s) in the release (add a rule to "
                             f"pallasbench/tools/release_paths.py or drop the record):\n  {shown}")
