"""PallasBench from Python: `pallasbench.tasks()`, `pallasbench.evaluate(...)`, `pallasbench.run(...)`,
`pallasbench.compare(...)`, `pallasbench.read_records(...)`.

A thin layer over the binary (`build/pallasbench`, or $PALLASBENCH_BINARY): every judgement stays
in the C++ harness and its sandboxed workers; this module only writes the request, starts the
binary and reads the records it prints. Usage errors (exit 2: an unknown task, a bad flag, a
malformed request) raise UsageError with the binary's whole message; a missing candidate file
raises FileNotFoundError naming it, before the binary starts; a harness failure before any record
(exit 3) raises HarnessError. Everything else, a failing candidate included, is a record.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class UsageError(ValueError):
    """The binary refused the request (exit 2): its message says what is wrong."""


class HarnessError(RuntimeError):
    """The harness could not evaluate (exit 3) and recorded nothing."""


def binary() -> Path:
    path = Path(os.environ.get("PALLASBENCH_BINARY", ROOT / "build" / "pallasbench"))
    if not path.exists():
        raise HarnessError(f"{path} is missing: build it first (make build), or set PALLASBENCH_BINARY")
    return path


def _flags(options: dict) -> list[str]:
    """Keyword arguments as the CLI's flags: seeds=5 -> --seeds 5, no_timing=True -> --no-timing."""
    out = []
    for name, value in options.items():
        if value is None or value is False:
            continue
        flag = "--" + name.replace("_", "-")
        out += [flag] if value is True else [flag, str(value)]
    return out


def _call(args: list[str], stdin: str | None = None, timeout: float | None = None) -> subprocess.CompletedProcess:
    result = subprocess.run([str(binary()), *args], input=stdin, capture_output=True, text=True, timeout=timeout)
    if result.returncode == 2:
        # The binary's message whole: CLI11's last line alone ("Run with --help ...") says nothing.
        raise UsageError(result.stderr.strip() or f"usage error (exit 2) from {' '.join(args[:1])}")
    if result.returncode == 3 and not result.stdout.strip():
        raise HarnessError(result.stderr.strip()[-2000:])
    return result


def tasks(level: int | None = None) -> list[dict]:
    """The suite's tasks (name, level, category, shapes by size), as `pallasbench list --json`."""
    return json.loads(_call(["list", "--json", *(["--level", str(level)] if level else [])]).stdout)


def _listed(value, keyword: str, kind: type | tuple) -> list:
    """One value or a list of them, each of `kind`; a TypeError naming the keyword otherwise."""
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    for i, v in enumerate(values):
        if not isinstance(v, kind):
            raise TypeError(f"{keyword}[{i}]: {type(v).__name__} where {keyword}= takes "
                            f"{'a path (str or os.PathLike)' if keyword == 'path' else 'source text (str)'}")
    return values


def _requests(task: str, size: str, path, source) -> list[dict]:
    """The batch's requests: the files of path= (each must exist), then the texts of source=.
    Nothing is guessed: a string given as path= is a path, one given as source= is source text."""
    if path is None and source is None:
        raise TypeError("evaluate() needs path= (candidate files) or source= (source text), or both")
    files = [Path(p) for p in _listed(path, "path", (str, os.PathLike))] if path is not None else []
    for f in files:
        if not f.is_file():
            raise FileNotFoundError(f"candidate file not found: {f}")
    texts = _listed(source, "source", str) if source is not None else []
    requests = [{"path": str(f.resolve())} for f in files] + [{"source": text} for text in texts]
    return [{"id": str(i), "task": task, "size": size, **r} for i, r in enumerate(requests)]


def evaluate(task: str, *, path=None, source=None, size: str = "small", device: str = "auto",
             timeout: float | None = None, **flags):
    """Evaluates candidates against `task`: `path=` a file (or a list of files) and/or `source=`
    source text (or a list of texts). Returns the record of a single path= or source=; else the
    list of records, the files' first, each in the order given. A record of source text names it
    by its request id (candidate.path "request:<i>", i its place in that list). Flags as the
    CLI's: seeds=5, no_timing=True, jobs=4, compile_cache="/tmp/cc", ...; `timeout` bounds the
    whole call (the CLI's own --timeout, per wait on a worker, is `worker_timeout=`)."""
    requests = _requests(task, size, path, source)
    if not requests:
        return []
    lines = "".join(json.dumps(r) + "\n" for r in requests)
    if "worker_timeout" in flags:
        flags["timeout"] = flags.pop("worker_timeout")
    result = _call(["eval", "--batch", "-", "--json", "--device", device, *_flags(flags)], lines, timeout)
    records = {r["request_id"]: r for r in map(json.loads, result.stdout.splitlines()) if r.get("request_id")}
    missing = [r["id"] for r in requests if r["id"] not in records]
    if missing:
        raise HarnessError(f"no record for candidate(s) {', '.join(missing)}: {result.stderr.strip()[-2000:]}")
    ordered = [records[r["id"]] for r in requests]
    single = (path is None) != (source is None) and not isinstance(path if path is not None else source, (list, tuple))
    return ordered[0] if single else ordered


def run(*task_names: str, size: str = "small", device: str = "auto", out: str | os.PathLike | None = None,
        timeout: float | None = None, **flags) -> list[dict]:
    """The suite's own kernels (all, or those named, or level=N / category=C), as `pallasbench run`;
    returns their records in the run's order. Records go to `out` (a fresh folder when None)."""
    folder = Path(out) if out is not None else Path(tempfile.mkdtemp(prefix="pallasbench-run-"))
    _call(["run", *task_names, "--size", size, "--device", device, "--out", str(folder), *_flags(flags)],
          timeout=timeout)
    return read_records(folder) if (folder / "records.jsonl").exists() else []


def read_records(*paths: str | os.PathLike) -> list[dict]:
    """Every record of run folders or records files, in file order, none dropped: what `report`
    and the HTML report read (pallasbench.tools.records). A folder stands for its records.jsonl
    (or records.jsonl.gz); a file may be gzipped, as the committed GPU results are. A file that
    cannot be read, or a corrupt line, raises UsageError naming file:line."""
    from pallasbench.tools import ToolUsageError, records

    try:
        return [record for record, _ in records.read_all([str(p) for p in paths])]
    except ToolUsageError as e:
        raise UsageError(str(e)) from e


def compare(base, new=None, *, task: str | None = None, timeout: float | None = None, **flags) -> dict:
    """`pallasbench compare --json`: {"rows": [...], "counts": {...}}. `base` and `new` are records
    files or run folders, or lists of them (a side's repetitions: a Mann-Whitney U test across them);
    with task="T" they are candidate files evaluated alternately in one run (new=None: `base`
    against the suite's kernel of T). Flags as the CLI's: threshold=0.05, alpha=0.01, repetitions=9,
    size="medium", device="gpu"."""
    def side(value) -> str:
        return ",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)

    args = ["compare", side(base), *([side(new)] if new is not None else []), *(["--task", task] if task else [])]
    return json.loads(_call([*args, *_flags(flags), "--json"], timeout=timeout).stdout)
