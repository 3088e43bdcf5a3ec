"""Table of bench/fidelity.sh's output: our CUPTI median vs ncu's median gpu__time_duration.sum.

usage: python3 bench/fidelity_table.py fidelity.txt
ncu rows are kept for the kernel our timer saw (by name), after the 5 warm-up launches.
"""
import csv
import json
import statistics
import sys

ours, theirs = {}, {}
for line in open(sys.argv[1]):
    if line.startswith("ours "):
        rec = json.loads(line[5:])
        ours[(rec["task"], rec["size"])] = rec
    elif line.startswith("ncu "):
        _, task, size, row = line.split(" ", 3)
        cols = next(csv.reader([row]))
        # ID, PID, process, host, kernel name, context, stream, block, grid, device, CC, section, metric, unit, value
        name, unit, value = cols[4], cols[13], float(cols[14].replace(",", ""))
        scale = {"ns": 1e-3, "us": 1.0, "usecond": 1.0, "nsecond": 1e-3, "ms": 1e3, "msecond": 1e3}[unit]
        theirs.setdefault((task, size), []).append((name, value * scale))
print("| kernel | size | our median (CUPTI) | ncu median gpu__time_duration | difference |")
print("|---|---|---|---|---|")
for key, rec in ours.items():
    names = set(rec["kernels"])
    durations = [us for name, us in theirs.get(key, []) if name in names][5:]
    if not durations:
        print(f"| {key[0]} | {key[1]} | {rec['median_us']:.2f} us | (no ncu rows) | |")
        continue
    ncu = statistics.median(durations)
    diff = 100 * (rec["median_us"] - ncu) / ncu
    print(f"| {key[0]} ({', '.join(sorted(names))}) | {key[1]} | {rec['median_us']:.2f} us | "
          f"{ncu:.2f} us (n={len(durations)}) | {diff:+.2f}% |")
