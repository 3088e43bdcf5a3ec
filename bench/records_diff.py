#!/usr/bin/env python3
"""Shows that two runs' records say the same thing: every field equal, except those that differ
by nature between runs (ids, times, paths, the machine's state) and, reported apart, those
derived from a task file's text (its source, hashes, the names the tracer saw).

Used to check that a refactoring left the harness's behaviour alone: run the suite before and
after with the same seed, then

    bench/records_diff.py before/records.jsonl after/records.jsonl

Exit status 0 when no judged field differs, 1 otherwise (each difference is printed).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

# Differ between any two runs: identity, clocks, host state, where files went.
VOLATILE = (
    "run_id", "uuid", "environment", "trust/phase_s", "trust/tracer_sandbox", "timing", "compile",
    "memory", "result/wall_time_seconds", "result/jit_compile_time_seconds", "roofline/tflops",
    "roofline/gbps", "roofline/pct_peak_bandwidth", "roofline/pct_peak_flops", "stderr_tail",
    "artifacts/pass_trail", "seed/source",
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


def load(path: Path) -> dict[tuple, dict]:
    records = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        record = json.loads(line)
        key = (record["kernel_name"], record["size"], record["candidate"]["kind"],
               Path(record["candidate"]["path"]).name)
        if key in records:
            sys.exit(f"{path}:{number}: a second record of {key}")
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    args = parser.parse_args()
    before, after = load(args.before), load(args.after)
    problems = 0
    for key in sorted(before.keys() ^ after.keys()):
        print(f"{key}: only in {'before' if key in before else 'after'}")
        problems += 1
    derived_count: dict[str, int] = {}
    for key in sorted(before.keys() & after.keys()):
        judged, derived = differences(before[key], after[key])
        for line in judged:
            print(f"{key[0]} ({key[1]}): {line}")
        problems += len(judged)
        for path in derived:
            top = path.split("/")[0]
            derived_count[top] = derived_count.get(top, 0) + 1
    common = len(before.keys() & after.keys())
    print(f"{common} records in both; {problems} judged difference(s)")
    if derived_count:
        print("source-derived fields that differ (not judged): "
              + ", ".join(f"{k} x{v}" for k, v in sorted(derived_count.items())))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
