"""PallasBench from Python: `pallasbench.tasks()`, `pallasbench.evaluate(...)`, `pallasbench.run(...)`,
`pallasbench.compare(...)`.

A thin layer over the binary (`build/pallasbench`, or $PALLASBENCH_BINARY): every judgement stays
in the C++ harness and its sandboxed workers; this module only writes the request, starts the
binary and reads the records it prints. Usage errors (exit 2: an unknown task, a bad flag, a
malformed request) raise UsageError with the binary's message; a harness failure before any record
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
        raise UsageError(result.stderr.strip().splitlines()[-1] if result.stderr.strip() else "usage error")
    if result.returncode == 3 and not result.stdout.strip():
        raise HarnessError(result.stderr.strip()[-2000:])
    return result


def tasks(level: int | None = None) -> list[dict]:
    """The suite's tasks (name, level, category, shapes by size), as `pallasbench list --json`."""
    return json.loads(_call(["list", "--json", *(["--level", str(level)] if level else [])]).stdout)


def _request(task: str, candidate, size: str, index: int) -> dict:
    """A batch request: a Path (or a str naming an existing file) is a file, any other str a source."""
    request = {"id": str(index), "task": task, "size": size}
    if isinstance(candidate, Path) or (isinstance(candidate, str) and "\n" not in candidate
                                       and os.path.isfile(candidate)):
        request["path"] = str(Path(candidate).resolve())
    elif isinstance(candidate, str):
        request["source"] = candidate
    else:
        raise TypeError(f"candidate {index}: a path or a source string, not {type(candidate).__name__}")
    return request


def evaluate(task: str, candidate, size: str = "small", device: str = "auto", timeout: float | None = None,
             **flags):
    """Evaluates `candidate` (a path, a source string, or a list of them) against `task`; returns
    its record, or the list of records in the candidates' order. Flags as the CLI's: seeds=5,
    no_timing=True, jobs=4, compile_cache="/tmp/cc", ...; `timeout` bounds the whole call (the
    CLI's own --timeout, per wait on a worker, is `worker_timeout=`)."""
    batch = list(candidate) if isinstance(candidate, (list, tuple)) else [candidate]
    if not batch:
        return []
    lines = "".join(json.dumps(_request(task, c, size, i)) + "\n" for i, c in enumerate(batch))
    if "worker_timeout" in flags:
        flags["timeout"] = flags.pop("worker_timeout")
    result = _call(["eval", "--batch", "-", "--json", "--device", device, *_flags(flags)], lines, timeout)
    records = {r["request_id"]: r for r in map(json.loads, result.stdout.splitlines()) if r.get("request_id")}
    missing = [str(i) for i in range(len(batch)) if str(i) not in records]
    if missing:
        raise HarnessError(f"no record for candidate(s) {', '.join(missing)}: {result.stderr.strip()[-2000:]}")
    ordered = [records[str(i)] for i in range(len(batch))]
    return ordered if isinstance(candidate, (list, tuple)) else ordered[0]


def run(*task_names: str, size: str = "small", device: str = "auto", out: str | os.PathLike | None = None,
        timeout: float | None = None, **flags) -> list[dict]:
    """The suite's own kernels (all, or those named, or level=N / category=C), as `pallasbench run`;
    returns their records in the run's order. Records go to `out` (a fresh folder when None)."""
    folder = Path(out) if out is not None else Path(tempfile.mkdtemp(prefix="pallasbench-run-"))
    _call(["run", *task_names, "--size", size, "--device", device, "--out", str(folder), *_flags(flags)],
          timeout=timeout)
    records = folder / "records.jsonl"
    return [json.loads(line) for line in records.read_text().splitlines()] if records.exists() else []


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
