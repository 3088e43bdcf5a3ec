"""One markdown row per task across runs of the same suite at different dtypes (or any runs):
the CUPTI speedup over XLA (reference / kernel median) with its 95% CI in each, and each run's
geomean over the tasks timed in all of them.

usage: python3 bench/dtype_table.py LABEL=RECORDS [LABEL=RECORDS ...]   (records.jsonl[.gz])
"""
import gzip
import json
import math
import sys


def speedups(path):
    opener = gzip.open if path.endswith(".gz") else open
    out = {}
    with opener(path, "rt") as f:
        for line in f:
            r = json.loads(line)
            t = r.get("timing") or {}
            if r["status"] == "ok" and t.get("speedup"):
                out[r["kernel_name"]] = (t["speedup"], t["speedup_ci95"], t["median_us"])
    return out


def main() -> int:
    runs = [(label, speedups(path)) for label, path in (arg.split("=", 1) for arg in sys.argv[1:])]
    names = list(runs[0][1])
    for _, run in runs[1:]:
        names += [n for n in run if n not in names]
    print("| task | " + " | ".join(f"{label}: speedup [95% CI] (kernel)" for label, _ in runs) + " |")
    print("|---|" + "---|" * len(runs))
    for name in names:
        cells = []
        for _, run in runs:
            if name in run:
                s, (lo, hi), us = run[name]
                cells.append(f"{s:.2f} [{lo:.2f}, {hi:.2f}] ({us:.1f} us)")
            else:
                cells.append("-")
        print(f"| {name} | " + " | ".join(cells) + " |")
    common = [n for n in names if all(n in run for _, run in runs)]
    geomeans = [math.exp(sum(math.log(run[n][0]) for n in common) / len(common)) for _, run in runs]
    print(f"| geomean ({len(common)} tasks) | " + " | ".join(f"{g:.3f}" for g in geomeans) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
