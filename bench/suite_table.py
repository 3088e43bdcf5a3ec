"""One markdown table of a suite's speed against XLA over several runs: a row per task, a column per
run (LABEL=RECORDS), each cell the ratio XLA reference / kernel (CUPTI medians) or the verdict
where the task was not ok and robust; then each run's geomean and the tasks under a threshold.

usage: python3 bench/suite_table.py [--under 0.8] LABEL=RECORDS[+RECORDS...]...
(records.jsonl[.gz] or a run folder). A task listed twice in one run keeps its last record (a
resumed run appends); RECORDS joined by "+" make one column, a later file's record of a task
replacing an earlier one's (a task run again after a fix).
The category and the share of the copy ceiling (memory-bound tasks) come from the records.
"""
import argparse
import gzip
import json
import math
import os


def load(path):
    if os.path.isdir(path):
        path = os.path.join(path, "records.jsonl")
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return {r["kernel_name"]: r for r in (json.loads(line) for line in f if line.strip())}


def ratio(record):
    """The speedup of an ok and robust record, else None."""
    t = record.get("timing") or {}
    robust = (record.get("result") or {}).get("robustness_passed")
    return t.get("speedup") if record["status"] == "ok" and robust and t.get("speedup") else None


def cell(record):
    if record is None:
        return ""
    r = ratio(record)
    if r is not None:
        return f"{r:.2f}"
    robust = (record.get("result") or {}).get("robustness_passed")
    return record["status"] if record["status"] != "ok" else ("ok, not robust" if not robust else "untimed")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--under", type=float, default=0.8, help="list the tasks under this ratio")
    parser.add_argument("runs", nargs="+", metavar="LABEL=RECORDS")
    args = parser.parse_args()
    runs = []
    for label, paths in (r.split("=", 1) for r in args.runs):
        records = {}
        for path in paths.split("+"):
            records.update(load(path))
        runs.append((label, records))
    tasks = sorted({t for _, recs in runs for t in recs},
                   key=lambda t: next((recs[t].get("level", 0), recs[t].get("category", ""), t)
                                      for _, recs in runs if t in recs))
    print("| task | level | category | " + " | ".join(label for label, _ in runs) + " |")
    print("|---|---|---|" + "---|" * len(runs))
    for t in tasks:
        first = next(recs[t] for _, recs in runs if t in recs)
        print(f"| {t} | {first.get('level', '')} | {first.get('category', '')} | "
              + " | ".join(cell(recs.get(t)) for _, recs in runs) + " |")
    print()
    for label, recs in runs:
        ratios = [ratio(r) for r in recs.values()]
        good = [r for r in ratios if r is not None]
        geo = math.exp(sum(map(math.log, good)) / len(good)) if good else float("nan")
        under = sorted((ratio(r), t) for t, r in recs.items() if ratio(r) is not None and ratio(r) < args.under)
        bad = sorted(t for t, r in recs.items() if ratio(r) is None)
        print(f"- {label}: {len(recs)} tasks, {len(good)} ok, robust and timed; geomean {geo:.3f}; "
              f"under {args.under}: " + (", ".join(f"{t} {v:.2f}" for v, t in under) or "none")
              + (f"; not ok+robust: {', '.join(bad)}" if bad else ""))


if __name__ == "__main__":
    main()
