"""Markdown table of kernel vs XLA reference device times from run records (records.jsonl[.gz]).

usage: python3 bench/speed_table.py RECORDS...   (one row per ok record, in file order)
Columns: CUPTI median of kernel and reference, ratio (reference / kernel) with its 95% CI, the
share of the copy or FLOP ceiling reached (the record's roofline) and, where the record has a
compiler summary, registers, spills and tensor-core use.
"""
import gzip
import json
import sys


def rows(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        yield from (json.loads(line) for line in f)


def cell_us(us):
    return f"{us / 1000:.2f} ms" if us >= 1000 else f"{us:.1f} us"


print("| task | size | kernel | XLA reference | ratio [95% CI] | roofline | regs | spills | tensor core |")
print("|---|---|---|---|---|---|---|---|---|")
for path in sys.argv[1:]:
    for r in rows(path):
        t = r.get("timing") or {}
        if r["status"] != "ok" or not t.get("speedup"):
            continue
        roof = r.get("roofline") or {}
        if roof.get("flops_ceiling") and (roof.get("pct_peak_flops") or 0) > (roof.get("pct_peak_bandwidth") or 0):
            achieved = f"{roof['pct_peak_flops']:.0f}% of {roof['flops_ceiling']}"
        elif roof.get("pct_peak_bandwidth") is not None:
            achieved = f"{roof['pct_peak_bandwidth']:.0f}% of copy"
        else:
            achieved = "-"
        summary = (r.get("artifacts") or {}).get("summary") or {}
        lo, hi = t["speedup_ci95"]
        print(f"| {r['kernel_name']} | {r['size']} | {cell_us(t['median_us'])} | {cell_us(t['reference_median_us'])} "
              f"| {t['speedup']:.2f} [{lo:.2f}, {hi:.2f}] | {achieved} | {summary.get('max_registers', '-')} "
              f"| {summary.get('spills', '-')} | {summary.get('tensor_core', '-')} |")
