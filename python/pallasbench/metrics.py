"""Scores over records, as the field reports them: `fast_p` (KernelBench), `pass_at_k` (the Codex
paper's unbiased estimator) and `to_pandas`, one flat row per record for a notebook.

They read only what the binary wrote into each record: its verdict (`passed`: status ok and robust)
and its speedup (`timing.speedup`, the XLA reference's median over the kernel's; absent in CPU
interpret mode and with --no-timing). Nothing here re-judges a record.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

# The one reading of a record's verdict and speedup, shared with every tool (tools/records.py).
from pallasbench.tools.records import passed, speedup


def _task_of(record: dict) -> tuple:
    """What one generation is a generation of: the task at one size and dtype (not the backend: a
    generation's backend is what its module chose)."""
    return (record.get("kernel_name"), record.get("size"), record.get("dtype", "float32"))


def fast_p(records, p: float) -> float:
    """KernelBench's fast_p: the share of the records (candidates) that passed and run faster than
    `p` times the XLA reference (speedup > p). fast_0 is the share that passed. For p > 0 a passed
    record without a speedup (timed on the CPU, or --no-timing) cannot be scored: ValueError."""
    records = list(records)
    if not records:
        raise ValueError("fast_p of no records")
    if p < 0:
        raise ValueError(f"fast_p: p must be >= 0, not {p}")
    good = [r for r in records if passed(r)]
    if p == 0:
        return len(good) / len(records)
    untimed = [r.get("kernel_name") for r in good if speedup(r) is None]
    if untimed:
        raise ValueError(f"fast_p({p}): {len(untimed)} passed record(s) have no speedup "
                         f"({', '.join(sorted(set(map(str, untimed))))}): timed in CPU interpret mode "
                         "or with --no-timing; only fast_0 needs no timing")
    return sum(speedup(r) > p for r in good) / len(records)


def _pass_at_k_one(n: int, c: int, k: int) -> float:
    """1 - C(n-c, k) / C(n, k): the chance that k of the n generations, drawn without replacement,
    hold at least one correct. The ratio is a product (1 - k/i) over i = n-c+1 .. n, which avoids
    the binomials' huge numbers."""
    if n - c < k:
        return 1.0
    missing_all = 1.0
    for i in range(n - c + 1, n + 1):
        missing_all *= 1.0 - k / i
    return 1.0 - missing_all


def pass_at_k(records, k: int, per_task: bool = False):
    """pass@k over n generations per task (the records of one task at one size and dtype),
    c of them passed: the Codex paper's unbiased estimator 1 - C(n-c, k)/C(n, k), averaged over the
    tasks; with per_task=True the dict of each task's value instead. Every task needs n >= k."""
    if k < 1:
        raise ValueError(f"pass_at_k: k must be >= 1, not {k}")
    counts: dict[tuple, list[int]] = defaultdict(lambda: [0, 0])
    for r in records:
        n_c = counts[_task_of(r)]
        n_c[0] += 1
        n_c[1] += passed(r)
    if not counts:
        raise ValueError("pass_at_k of no records")
    short = [f"{t[0]} ({n} < {k})" for t, (n, _) in counts.items() if n < k]
    if short:
        raise ValueError(f"pass_at_k({k}): fewer than k generations for {', '.join(short)}")
    values = {"/".join(str(part) for part in t if part): _pass_at_k_one(n, c, k) for t, (n, c) in counts.items()}
    return values if per_task else sum(values.values()) / len(values)


def candidate_name(record: dict) -> str:
    """A batch request's id, a user file's name, or "" for the suite's own kernel."""
    if record.get("request_id"):
        return str(record["request_id"])
    candidate = record.get("candidate") or {}
    return Path(candidate.get("path", "")).name if candidate.get("kind") == "user" else ""


def to_pandas(records):
    """One row per record, the columns a notebook compares candidates by: task, size, dtype,
    backend, candidate, status, passed, correct, robust, max_abs_error, kernel_us, reference_us,
    speedup, timer, device, uuid. A missing value is None (pandas' NA)."""
    import pandas as pd

    def row(r: dict) -> dict:
        result = r.get("result") or {}
        timing = r.get("timing") or {}
        return {
            "task": r.get("kernel_name"), "size": r.get("size"), "dtype": r.get("dtype", "float32"),
            "backend": r.get("backend"), "candidate": candidate_name(r), "status": r.get("status"),
            "passed": passed(r), "correct": result.get("correctness_passed"),
            "robust": result.get("robustness_passed"), "max_abs_error": result.get("max_abs_error"),
            "kernel_us": timing.get("median_us"), "reference_us": timing.get("reference_median_us"),
            "speedup": speedup(r), "timer": timing.get("timer"), "device": (r.get("config") or {}).get("device"),
            "uuid": r.get("uuid"),
        }

    return pd.DataFrame([row(r) for r in records])
