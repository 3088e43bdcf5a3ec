"""Whether two records say the same thing: every field equal, except those that differ by nature
between runs (ids, times, paths, the machine's state, the shard that did the work) and, told
apart, those derived from a task file's text (its source, hashes, the names the tracer saw).

bench/records_diff.py compares two runs' files with it; the tests compare a merged file of shards
with the unsharded run's.
"""

from __future__ import annotations

import re
from pathlib import Path

# Differ between any two runs: identity, clocks, host state (and the memory shares the host's
# budget and the lanes gave each process; a retry a neighbour's memory caused), where files went,
# which shard and which lane ran it.
VOLATILE = (
    "run_id", "uuid", "environment", "trust/phase_s", "trust/tracer_sandbox", "trust/worker_memory",
    "trust/retried_alone", "timing", "compile",
    "memory", "result/wall_time_seconds", "result/jit_compile_time_seconds", "roofline/tflops",
    "roofline/gbps", "roofline/pct_peak_bandwidth", "roofline/pct_peak_flops", "stderr_tail",
    "artifacts/pass_trail", "seed/source", "shard", "phases", "placement",
)
# Follow from the text of the candidate's file (a task file that was rewritten keeps its
# semantics but not its bytes): reported, not judged.
SOURCE_DERIVED = (
    "source_original", "source_fixed", "triton_code", "python_code", "sha", "task_sha256",
    "candidate/sha256", "candidate/path", "config_hash", "jaxpr", "jaxpr_dag", "stablehlo",
    "trust/analysed_stablehlo", "artifacts", "error/traceback", "module_name",
)
# The name a pallas_call is given (its kernel's name in the jaxpr, the PTX and CUPTI's list) is the
# task file's choice too: a body shared through a kernels/ family is named after the task.
SOURCE_DERIVED_PATTERNS = (re.compile(r"pallas_calls/\d+/name"),)


def key_of(record: dict) -> tuple:
    """What one run records once: task, size, candidate kind and file name."""
    return (record["kernel_name"], record["size"], record["candidate"]["kind"],
            Path(record["candidate"]["path"]).name)


def load(path: Path) -> dict[tuple, dict]:
    """A records file's (or run folder's; gzipped or not) records by key_of, read by the tools' one
    reader; ValueError naming file:line on an unreadable line or a second record of a key."""
    from pallasbench.tools import ToolUsageError
    from pallasbench.tools import records as records_io

    try:
        items = records_io.read(str(path))
    except ToolUsageError as e:
        raise ValueError(str(e)) from e
    records = {}
    for record, source in items:
        key = key_of(record)
        if key in records:
            raise ValueError(f"{source.path}:{source.line}: a second record of {key}")
        records[key] = record
    return records


def flatten(value, prefix: str = ""):
    """(path, leaf) pairs; a list is a leaf unless it holds objects (then its items are walked)."""
    if isinstance(value, dict):
        for name, item in value.items():
            yield from flatten(item, f"{prefix}/{name}" if prefix else name)
    elif isinstance(value, list) and any(isinstance(v, dict) for v in value):
        for index, item in enumerate(value):
            yield from flatten(item, f"{prefix}/{index}")
    else:
        yield prefix, value


def under(path: str, prefixes) -> bool:
    return any(path == p or path.startswith(p + "/") for p in prefixes)


def differences(before: dict, after: dict) -> tuple[list[str], list[str]]:
    """(judged differences, source-derived field paths that differ)."""
    left, right = dict(flatten(before)), dict(flatten(after))
    judged, derived = [], []
    for path in sorted(left.keys() | right.keys()):
        if under(path, VOLATILE) or left.get(path, "<absent>") == right.get(path, "<absent>"):
            continue
        if under(path, SOURCE_DERIVED) or any(p.fullmatch(path) for p in SOURCE_DERIVED_PATTERNS):
            derived.append(path)
        else:
            judged.append(f"{path}: {left.get(path, '<absent>')!r} -> {right.get(path, '<absent>')!r}")
    return judged, derived
