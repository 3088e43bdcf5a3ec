"""Mosaic GPU against Triton, side by side: one table per (size, dtype) from the records of
`run --backend all` (records files or run folders, gzipped or not). Each row is a task: its
Mosaic GPU and Triton kernels' speedups over XLA (the records' own `timing.speedup`), Mosaic/Triton,
and each side's verdict; then each Mosaic family's geomeans (the kernels module the task's
Mosaic implementation comes from). Only records that passed (ok and robust) count in a geomean.

    .venv/bin/python bench/backends_table.py RECORDS... > table.md
"""
from __future__ import annotations

import gzip
import json
import math
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

from pallasbench.tools import records as reader  # noqa: E402


def load(argument: str) -> list[dict]:
    path = Path(argument)
    if path.is_dir():
        path = path / "records.jsonl"
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as f:
        return [json.loads(line) for line in f if line.strip()]


def family_of(task: str) -> str:
    from pallasbench.task import registry

    fn = registry.implementations(registry.load(task)).get("mosaic_gpu")
    return fn.__module__.rsplit(".", 1)[-1].removeprefix("mosaic_") if fn else "-"


def geomean(values):
    values = [v for v in values if v]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def cell(value, digits=2, suffix="x"):
    return "-" if value is None else f"{value:.{digits}f}{suffix}"


def verdict(record):
    if record is None:
        return "-"
    return "ok" if reader.passed(record) else f"{record['status']}{'' if record['status'] != 'ok' else ', not robust'}"


def table(rows: dict, title: str) -> list[str]:
    out = [f"## {title}", "", "| task | family | Mosaic/XLA | Triton/XLA | Mosaic/Triton | Mosaic | Triton |",
           "|---|---|---|---|---|---|---|"]
    by_family = defaultdict(lambda: ([], []))
    for task in sorted(rows, key=lambda t: (family_of(t), t)):
        mosaic, triton = rows[task].get("mosaic_gpu"), rows[task].get("triton")
        m = reader.speedup(mosaic) if mosaic and reader.passed(mosaic) else None
        t = reader.speedup(triton) if triton and reader.passed(triton) else None
        family = family_of(task)
        if m and t:
            by_family[family][0].append(m)
            by_family[family][1].append(t)
        out.append(f"| {task} | {family} | {cell(m)} | {cell(t)} | {cell(m / t if m and t else None)} | "
                   f"{verdict(mosaic)} | {verdict(triton)} |")
    out += ["", "| family | tasks (both passed, timed) | Mosaic geomean | Triton geomean |", "|---|---|---|---|"]
    for family, (m, t) in sorted(by_family.items()):
        out.append(f"| {family} | {len(m)} | {cell(geomean(m), 3)} | {cell(geomean(t), 3)} |")
    every_m = [v for m, _ in by_family.values() for v in m]
    every_t = [v for _, t in by_family.values() for v in t]
    out.append(f"| all | {len(every_m)} | {cell(geomean(every_m), 3)} | {cell(geomean(every_t), 3)} |")
    return out + [""]


def main(arguments: list[str]) -> int:
    if not arguments:
        print(__doc__, file=sys.stderr)
        return 2
    groups: dict = defaultdict(lambda: defaultdict(dict))
    devices = set()
    for argument in arguments:
        for record in load(argument):
            backend = (record.get("config") or {}).get("backend")
            if backend is None:
                continue
            devices.add((record.get("environment") or {}).get("device_kind", "?"))
            groups[(record["size"], record.get("dtype", "float32"))][record["kernel_name"]][backend] = record
    print(f"# Mosaic GPU and Triton against XLA ({', '.join(sorted(devices))})\n")
    print("Speedups are the records' `timing.speedup` (XLA's median CUPTI device time over the kernel's), "
          "for records that passed (ok and robust); a family geomean counts the tasks where both backends "
          "passed.\n")
    for (size, dtype), rows in sorted(groups.items()):
        print("\n".join(table(rows, f"{size}, {dtype}")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
