"""Table of bench/fidelity.sh's output: our CUPTI median vs ncu's median gpu__time_duration.sum.

usage: python3 bench/fidelity_table.py fidelity.txt
ncu rows are kept for the kernels our timer saw (by name), after the 5 warm-up calls. A task of
several kernels (matmul: pack, then matmul) is compared as the sum of each kernel's ncu median,
as our sample sums the kernels of one call.
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
    per_kernel = {name: [us for n, us in theirs.get(key, []) if n == name][5:] for name in names}
    if not all(per_kernel.values()):
        print(f"| {key[0]} | {key[1]} | {rec['median_us']:.2f} us | (no ncu rows) | |")
        continue
    ncu = sum(statistics.median(durations) for durations in per_kernel.values())
    count = min(len(durations) for durations in per_kernel.values())
    diff = 100 * (rec["median_us"] - ncu) / ncu
    print(f"| {key[0]} ({', '.join(sorted(names))}) | {key[1]} | {rec['median_us']:.2f} us | "
          f"{ncu:.2f} us (n={count}) | {diff:+.2f}% ({rec['median_us'] - ncu:+.2f} us) |")
