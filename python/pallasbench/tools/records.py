"""The one reader of records for the Python tools (the HTML report's rows, export and its dataset
card): run folders (their records.jsonl) or records files, every record in file order, each with
where it came from. Nothing is dropped or replaced: a candidate, a second size or a second run of
a task is a row of its own, as in `report`'s text table (the binary's reader, load_records)."""
from __future__ import annotations

import gzip
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path

from pallasbench.tools import ToolUsageError


@dataclass(frozen=True)
class Source:
    path: Path  # the records file
    line: int


def passed(record: dict) -> bool:
    """The record's verdict, `passed` (correct and robust), as the binary computed it once when it
    made the record (record/verdict.hpp). Every tool reads it here. A record from before the field
    (binaries up to 2026-12-05) is read as the binary reads it (record_passed, record.cpp): from
    its status and result.robustness_passed, by the same rule."""
    value = record.get("passed")
    if isinstance(value, bool):
        return value
    result = record.get("result") if isinstance(record.get("result"), dict) else {}
    return record.get("status") == "ok" and result.get("robustness_passed") is True


def speedup(record: dict) -> float | None:
    """The record's `timing.speedup` (XLA's median device time over the kernel's), as the binary
    computed it once (measure/metrics.cpp): device-timed records only, a positive finite ratio."""
    value = (record.get("timing") or {}).get("speedup")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) and value > 0 else None


def candidate_name(record: dict) -> str:
    """"suite" for the task's own kernel; a user candidate by its batch request's id (a source
    string's file name is made up), else its file's name: `report`'s text table names it by the
    same rule (summary_row::from_record)."""
    candidate = record.get("candidate") or {}
    if candidate.get("kind") == "suite":
        return "suite"
    request = record.get("request_id")
    if isinstance(request, str) and request:
        return request
    return Path(str(candidate.get("path", "?"))).name


def records_path(argument: str) -> Path:
    """A run folder stands for its records.jsonl, as `run --out` wrote it."""
    path = Path(argument)
    if path.is_dir():
        path = path / "records.jsonl"
    if not path.is_file():
        raise ToolUsageError(f"cannot read records file {path}")
    return path


def read_text(path: Path) -> str:
    """A records file's text; a .gz one (as bench/results/ commits them) decompressed."""
    if path.suffix == ".gz":
        return gzip.decompress(path.read_bytes()).decode("utf-8")
    return path.read_text(encoding="utf-8")


def read(argument: str) -> list[tuple[dict, Source]]:
    """One file's records (gzipped or not). A corrupt line is an error naming file:line, except a
    cut last line (a run killed mid-write), which is skipped with a warning, as the C++ reader does."""
    path = records_path(argument)
    try:
        lines = read_text(path).split("\n")
    except (OSError, UnicodeDecodeError, gzip.BadGzipFile, EOFError) as e:
        raise ToolUsageError(f"cannot read records file {path}: {e}") from e
    complete = lines[-1] == ""  # a file whose last line ended with its newline
    records = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as e:
            if number == len(lines) and not complete:
                print(f"pallasbench: warning: {path}:{number}: skipped a cut last line", file=sys.stderr)
                continue
            raise ToolUsageError(f"{path}:{number}: not a JSON record ({e.msg})") from e
        if not isinstance(record, dict) or "kernel_name" not in record or "status" not in record:
            raise ToolUsageError(f"{path}:{number}: not a PallasBench record (no kernel_name or status)")
        # A record from before the `passed` field gets it here, once, by passed()'s rule: every
        # tool (and an exported dataset's column, one bool type) then reads the field.
        record.setdefault("passed", passed(record))
        records.append((record, Source(path, number)))
    return records


def read_all(arguments: list[str]) -> list[tuple[dict, Source]]:
    if not arguments:
        raise ToolUsageError("no records given")
    return [item for argument in arguments for item in read(argument)]
