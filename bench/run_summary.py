"""Where a run's time went, from its records: counts by verdict, phase totals, compile-cache hits
and how the timed series stopped.

usage: python3 bench/run_summary.py RUN_FOLDER_OR_RECORDS...   (records.jsonl or .jsonl.gz)
Phases are lane-seconds (summed over records); "evaluations' wall" is the sum of the records'
wall_s, which the phases must add up to (the largest relative gap is printed).
"""
import collections
import gzip
import json
import os
import sys


def load(path):
    if os.path.isdir(path):
        path = os.path.join(path, "records.jsonl")
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return [json.loads(line) for line in f if line.strip()]


def summarize(path):
    try:
        records = load(path)
    except FileNotFoundError:
        print(path, "no records")
        return
    phases = collections.Counter()
    for r in records:
        phases.update(r.get("phases", {}))
    wall = phases.pop("wall_s", 0.0)
    verdicts = collections.Counter(
        f"{r['status']}/{'robust' if (r.get('result') or {}).get('robustness_passed') else 'not-robust'}"
        for r in records)
    hits = collections.Counter(str(((r.get("compile") or {}).get("cache") or {}).get("hit")) for r in records)
    stops = collections.Counter(r["timing"]["stopping"].split(":")[0] for r in records if r.get("timing"))
    print(f"{path}: {len(records)} records; {dict(verdicts)}; cache hits {dict(hits)}; stops {dict(stops)}")
    print("  phases (s):", {k: round(v, 1) for k, v in sorted(phases.items())},
          "sum", round(sum(phases.values()), 1), "evaluations' wall", round(wall, 1))
    gaps = [abs(sum(v for k, v in r["phases"].items() if k != "wall_s") - r["phases"]["wall_s"])
            / r["phases"]["wall_s"] for r in records if r.get("phases", {}).get("wall_s")]
    if gaps:
        print("  largest |sum(phases) - wall| / wall:", round(max(gaps), 4))
    bad = [r for r in records
           if r["status"] != "ok" or not (r.get("result") or {}).get("robustness_passed")]
    for r in bad[:20]:
        filters = (r.get("result") or {}).get("filters") or {}
        err = (r.get("error") or {}).get("message") or "; ".join(
            f"{name}: {f.get('reason')}" for name, f in filters.items() if not f.get("passed"))
        print(f"  not ok+robust: {r['kernel_name']} {r['status']} {str(err)[:160]}")


for arg in sys.argv[1:]:
    summarize(arg)
