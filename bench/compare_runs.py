"""Compares two runs of the same tasks (records.jsonl or .jsonl.gz).

usage:
  python3 bench/compare_runs.py repeat A B     medians of run A vs run B (repeatability)
  python3 bench/compare_runs.py compile A B    compile time of A (--artifacts none) vs B (capture on)
"""
import gzip
import json
import sys


def records(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return {(r["kernel_name"], r["size"]): r for r in map(json.loads, f) if r["status"] == "ok"}


def repeat(a, b):
    print("| task | size | run 1 median | run 2 median | difference | noise 1 / 2 |")
    print("|---|---|---|---|---|---|")
    for key in sorted(a.keys() & b.keys()):
        t1, t2 = a[key]["timing"], b[key]["timing"]
        diff = 100 * (t2["median_us"] - t1["median_us"]) / t1["median_us"]
        print(f"| {key[0]} | {key[1]} | {t1['median_us']:.2f} us | {t2['median_us']:.2f} us | {diff:+.2f}% | "
              f"{100 * t1['noise']:.2f}% / {100 * t2['noise']:.2f}% |")


def compile_overhead(a, b):
    print("| task | size | lower+compile, no capture | lower+compile, capture | on the compile path "
          "| overhead | background: capture compile + tools |")
    print("|---|---|---|---|---|---|---|")
    for key in sorted(a.keys() & b.keys()):
        base = a[key]["compile"]["lower_s"] + a[key]["compile"]["compile_s"]
        with_capture = b[key]["compile"]["lower_s"] + b[key]["compile"]["compile_s"]
        artifacts = b[key]["artifacts"]
        on_path = artifacts.get("capture_s") or 0.0  # Triton IR decoding, before the reply
        overhead = 100 * (with_capture + on_path - base) / base
        background = (artifacts.get("capture_compile_s") or 0.0) + (artifacts.get("tools_s") or 0.0)
        print(f"| {key[0]} | {key[1]} | {base:.3f} s | {with_capture:.3f} s | {1000 * on_path:.1f} ms | "
              f"{overhead:+.1f}% | {background:.2f} s |")


mode, first, second = sys.argv[1:4]
{"repeat": repeat, "compile": compile_overhead}[mode](records(first), records(second))
