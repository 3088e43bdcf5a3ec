"""What the HTML report shows, taken from records: one Row per record, the run header, geomeans.
Nothing here judges: every value is a record's, or arithmetic on a record's (a ratio, a geomean)."""
from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

from pallasbench.tools import records as record_reader


def _at(record: dict, *path, default=None):
    value = record
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return default
        value = value[key]
    return value


def _number(value) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _interval(value) -> tuple[float, float] | None:
    if isinstance(value, list) and len(value) == 2 and all(_number(v) is not None for v in value):
        return float(value[0]), float(value[1])
    return None


@dataclass
class Row:
    task: str
    level: int | None
    category: str
    size: str
    status: str
    candidate: str  # "suite" for the task's own kernel, else the candidate file's name
    passed: bool = False  # the record's verdict (correct and robust): only these count in charts and geomeans
    robust: bool | None = None
    failing_filter: str = ""
    filter_reason: str = ""
    timer: str = ""
    kernel_us: float | None = None
    kernel_ci: tuple[float, float] | None = None
    xla_us: float | None = None
    xla_ci: tuple[float, float] | None = None
    speedup: float | None = None
    speedup_ci: tuple[float, float] | None = None
    flops: float | None = None
    bytes: float | None = None
    pct_roofline: float | None = None
    bound: str = ""  # "memory" or "compute": the roofline's limit at this intensity
    registers: int | None = None
    spills: bool | None = None
    tensor_core: str = ""
    message: str = ""
    phase: str = ""
    stderr_tail: str = ""
    traceback: str = ""  # error.traceback: the worker's Python traceback of a failure

    @property
    def intensity(self) -> float | None:
        """FLOPs per byte moved, the roofline's x."""
        if self.flops and self.bytes:
            return self.flops / self.bytes
        return None


def _failing_filter(record: dict) -> tuple[str, str]:
    """The first filter that failed for its own reason (not "not run: status ...")."""
    filters = _at(record, "result", "filters", default={}) or {}
    for name, verdict in filters.items():
        reason = str(verdict.get("reason", ""))
        if verdict.get("passed") is False and not reason.startswith("not run:"):
            return name, reason
    return "", ""


def _size(record: dict) -> str:
    """The size, the dtype beside it when not float32 ("small/bfloat16") and Mosaic GPU when the
    suite's Mosaic GPU kernel ran, as `report` shows it."""
    size, dtype = str(record.get("size", "")), str(record.get("dtype", "float32"))
    label = size if dtype == "float32" else f"{size}/{dtype}"
    backend = (record.get("config") or {}).get("backend")
    return f"{label}/mosaic_gpu" if backend == "mosaic_gpu" else label


def row_of(record: dict) -> Row:
    timing = record.get("timing") or {}
    roofline = record.get("roofline") or {}
    summary = _at(record, "artifacts", "summary", default={}) or {}
    name, reason = _failing_filter(record)
    row = Row(task=str(record.get("kernel_name", "?")), level=record.get("level"),
              category=str(record.get("category", "")), size=_size(record),
              status=str(record.get("status", "?")), candidate=record_reader.candidate_name(record), passed=record_reader.passed(record),
              robust=_at(record, "result", "robustness_passed"), failing_filter=name, filter_reason=reason,
              timer=str(timing.get("timer", "")), message=str(_at(record, "error", "message", default="")),
              phase=str(_at(record, "error", "phase", default="")), stderr_tail=str(record.get("stderr_tail", "")),
              traceback=str(_at(record, "error", "traceback", default="") or ""))
    row.kernel_us, row.kernel_ci = _number(timing.get("median_us")), _interval(timing.get("ci95_us"))
    row.xla_us = _number(timing.get("reference_median_us"))
    row.xla_ci = _interval(_at(timing, "reference", "ci95_us"))
    row.speedup, row.speedup_ci = record_reader.speedup(record), _interval(timing.get("speedup_ci95"))
    row.flops, row.bytes = _number(roofline.get("flops")), _number(roofline.get("bytes"))
    bandwidth, compute = _number(roofline.get("pct_peak_bandwidth")), _number(roofline.get("pct_peak_flops"))
    if bandwidth is not None and compute is not None:
        # Attainable = min(peak, intensity x bandwidth), so achieved/attainable is the larger of
        # the two fractions of peak, and the larger one names the bound.
        row.pct_roofline = max(bandwidth, compute)
        row.bound = "memory" if bandwidth >= compute else "compute"
    row.registers = summary.get("max_registers") if isinstance(summary.get("max_registers"), int) else None
    row.spills = summary.get("spills") if isinstance(summary.get("spills"), bool) else None
    row.tensor_core = str(summary.get("tensor_core", ""))
    return row


def geomean(values: list[float]) -> float | None:
    positive = [v for v in values if v and v > 0]
    return math.exp(sum(math.log(v) for v in positive) / len(positive)) if positive else None


@dataclass
class Group:
    name: str
    tasks: int = 0
    ok: int = 0
    passed: int = 0
    speedups: list[float] = field(default_factory=list)

    @property
    def geomean(self) -> float | None:
        return geomean(self.speedups)


def groups(rows: list[Row], key) -> list[Group]:
    """Pass counts and the speedups' geomean per key(row) (level or category), in key order."""
    found: dict = defaultdict(lambda: None)
    for row in rows:
        name = key(row)
        group = found[name] or Group(str(name))
        found[name] = group
        group.tasks += 1
        group.ok += row.status == "ok"
        group.passed += row.passed
        if row.passed and row.speedup is not None:
            group.speedups.append(row.speedup)
    return [found[name] for name in sorted(found, key=lambda n: (n is None, str(n)))]


@dataclass
class Ceiling:
    name: str
    value: float
    unit: str  # "GB/s" or "TFLOP/s"
    what: str


@dataclass
class Header:
    records: int
    files: list[str]
    run_ids: list[str]
    environment: dict[str, list[str]]  # field -> distinct values
    ceilings: list[Ceiling]
    ceilings_method: str
    flags: dict[str, list[str]]
    seeds: str


def _distinct(values) -> list[str]:
    seen: list[str] = []
    for value in values:
        if value not in (None, "") and str(value) not in seen:
            seen.append(str(value))
    return seen


ENVIRONMENT_FIELDS = (("GPU", ("environment", "gpu_name")), ("driver", ("environment", "driver")),
                      ("CUDA", ("environment", "cuda")), ("jax", ("environment", "jax")),
                      ("jaxlib", ("environment", "jaxlib")), ("triton", ("environment", "triton")),
                      ("python", ("environment", "python")), ("backend", ("environment", "backend")),
                      ("timer", ("environment", "gpu", "timer")), ("host", ("environment", "hostname")))
FLAG_FIELDS = (("device", ("config", "device")), ("size", ("config", "size")), ("dtype", ("dtype",)),
               ("timeout_s", ("config", "timeout_s")), ("L2 flushed", ("timing", "l2_flush")),
               ("reference precision", ("timing", "reference_precision")),
               ("compile cache", ("compile", "cache", "enabled")), ("lanes", ("placement", "lanes")))


def _ceilings(records: list[dict]) -> tuple[list[Ceiling], str]:
    """The measured ceilings of the first record that has them (a run measures them once)."""
    for record in records:
        measured = _at(record, "environment", "gpu", "ceilings")
        if not isinstance(measured, dict):
            continue
        found = []
        for name, entry in measured.items():
            if not isinstance(entry, dict):
                continue
            if _number(entry.get("gbps")) is not None:
                found.append(Ceiling(name, float(entry["gbps"]), "GB/s", str(entry.get("what", ""))))
            elif _number(entry.get("tflops")) is not None:
                found.append(Ceiling(name, float(entry["tflops"]), "TFLOP/s", str(entry.get("what", ""))))
        return found, str(measured.get("method", ""))
    return [], ""


def header_of(records: list[dict], files: list[str]) -> Header:
    ceilings, method = _ceilings(records)
    sources = _distinct(_at(r, "seed", "source") for r in records)
    counts = _distinct(len(r["seeds"]) for r in records if isinstance(r.get("seeds"), list) and r["seeds"])
    asked = _distinct(_at(r, "config", "seeds") for r in records)
    # Said once: how many seeds were asked for (--seeds), how many each record checked, and where
    # they came from; each task's section lists a record's seeds with their errors.
    seeds = (f"{', '.join(asked) or '?'} asked (--seeds), {', '.join(counts) or 'none'} checked per record, "
             f"drawn per record ({', '.join(sources) or 'source not recorded'}); each task's section lists them")
    return Header(records=len(records), files=files, run_ids=_distinct(r.get("run_id") for r in records),
                  environment={label: _distinct(_at(r, *path) for r in records) for label, path in ENVIRONMENT_FIELDS},
                  ceilings=ceilings, ceilings_method=method,
                  flags={label: _distinct(_at(r, *path) for r in records) for label, path in FLAG_FIELDS},
                  seeds=seeds)
