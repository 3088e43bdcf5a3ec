#!/usr/bin/env python3
"""Shows that two runs' records say the same thing: every field equal, except those that differ
by nature between runs (ids, times, paths, the machine's state, the shard) and, reported apart,
those derived from a task file's text (its source, hashes, the names the tracer saw); the rules
are python/pallasbench/records_compare.py's.

Used to check that a refactoring left the harness's behaviour alone: run the suite before and
after with the same seed, then

    bench/records_diff.py before/records.jsonl after/records.jsonl

(or a `pallasbench merge` of shards against the unsharded run's records).

Exit status 0 when no judged field differs, 1 otherwise (each difference is printed).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from pallasbench.records_compare import differences, load  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    args = parser.parse_args()
    try:
        before, after = load(args.before), load(args.after)
    except ValueError as e:
        sys.exit(str(e))
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
