"""The one reader of records for the Python tools (the HTML report's rows, export and its dataset
card) and the Python API (`pallasbench.read_records`): run folders (their records.jsonl, or
records.jsonl.gz) or records files, gzipped or not, every record in file order, each with
where it came from. Nothing is dropped or replaced: a candidate, a second size or a second run of
a task is a row of its own, as in `report`'s text table (the binary's reader, load_records)."""
from __future__ import annotations

import gzip
import json
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from pallasbench.tools import ToolUsageError


REPOSITORY = Path(__file__).resolve().parents[3]
# A suite kernel's file is <repository>/tasks/level<N>/<task>.py wherever the repository was: an old
# record's absolute path of one shows the repository that wrote the file's records.
SUITE_FILE = re.compile(r"(/.*)/tasks/level\d+/[^/]+\.py")


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
    """A run folder stands for its records.jsonl, as `run --out` wrote it, or for its
    records.jsonl.gz when only that is there (the binary's rule: record/jsonl.hpp, records_file_of)."""
    path = Path(argument)
    if path.is_dir():
        plain = path / "records.jsonl"
        path = plain if plain.exists() or not (path / "records.jsonl.gz").is_file() else path / "records.jsonl.gz"
    if not path.is_file():
        raise ToolUsageError(f"cannot read records file {path}")
    return path


def read(argument: str) -> list[tuple[dict, Source]]:
    """One file's records (gzipped or not). A corrupt line is an error naming file:line, except a
    cut last line (a run killed mid-write), which is skipped with a warning, as the C++ reader does."""
    path = records_path(argument)
    try:
        # By its bytes, not its name: a gzip file starts 1f 8b (the binary's zlib reads either too).
        data = path.read_bytes()
        lines = (gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data).decode("utf-8").split("\n")
    except (OSError, EOFError, UnicodeDecodeError, gzip.BadGzipFile) as e:
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


def _inside(path: PurePosixPath, root: PurePosixPath) -> str | None:
    """`path` relative to `root` when it lies under it, lexically (the path is another machine's)."""
    try:
        relative = path.relative_to(root)
    except ValueError:
        return None
    return relative.as_posix() if relative.parts and ".." not in relative.parts else None


def _absolute(value) -> bool:
    return isinstance(value, str) and value.startswith("/")


def portable_paths(items: list[tuple[dict, Source]]) -> None:
    """Rewrites, in place, the absolute local paths of records from binaries before 2026-12-06, by the
    rule the binary now writes them (orchestrate/paths.hpp, portable_path): `candidate.path` and
    `module_name` relative to the repository (this one, or the one the file's suite records show
    wrote them), else to the run folder, else the file's name alone; `artifacts.<key>.path` relative
    to the run folder, or left as is for the publisher to refuse (export) or withhold (the HTML
    report). Readers that publish (export, the HTML report) call it; `report` shows names only."""
    writers: dict[Path, set[str]] = {}
    for record, source in items:
        candidate = record.get("candidate") if isinstance(record.get("candidate"), dict) else {}
        found = SUITE_FILE.fullmatch(str(candidate.get("path", "")))
        if candidate.get("kind") == "suite" and found:
            writers.setdefault(source.path, set()).add(found.group(1))
    for record, source in items:
        folders = [PurePosixPath(source.path.parent.absolute().as_posix()),
                   PurePosixPath(source.path.parent.resolve().as_posix())]
        roots = [PurePosixPath(REPOSITORY.as_posix()), *map(PurePosixPath, sorted(writers.get(source.path, ()))),
                 *folders]

        def placed(value: str) -> str:
            path = PurePosixPath(value)
            return next((r for r in (_inside(path, root) for root in roots) if r), path.name)

        candidate = record.get("candidate")
        if isinstance(candidate, dict) and _absolute(candidate.get("path")):
            candidate["path"] = placed(candidate["path"])
        if _absolute(record.get("module_name")):
            record["module_name"] = placed(record["module_name"])
        artifacts = record.get("artifacts") if isinstance(record.get("artifacts"), dict) else {}
        for entry in artifacts.values():
            if isinstance(entry, dict) and _absolute(entry.get("path")):
                inside = (_inside(PurePosixPath(entry["path"]), f) for f in folders)
                entry["path"] = next((r for r in inside if r), entry["path"])
