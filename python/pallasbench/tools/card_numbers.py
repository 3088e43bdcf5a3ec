"""The numbers of an exported dataset's card, each computed from the records: counts, pass rates,
geomean speedups, the environments and filter thresholds seen, how the times were taken. Nothing
here judges or assumes a value: what the records lack is reported as lacking."""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Iterable

from pallasbench import filters
from pallasbench.tools.records import passed, speedup


def at(record: dict, path: str, default=None):
    """The value at a dotted path ("result.correctness_passed"), or `default` where it is absent."""
    value = record
    for key in path.split("."):
        if not isinstance(value, dict) or key not in value:
            return default
        value = value[key]
    return value


@dataclass(frozen=True)
class Rate:
    passed: int
    of: int

    def __str__(self) -> str:
        if self.of == 0:
            return "-"
        return f"{self.passed}/{self.of} ({100 * self.passed / self.of:.1f}%)"


def rate(records: list[dict], path: str, passing=True) -> Rate:
    """How many records hold `passing` at `path`, of those that have the field at all."""
    having = [at(r, path) for r in records if at(r, path) is not None]
    return Rate(sum(1 for v in having if v == passing), len(having))


@dataclass(frozen=True)
class PassRow:
    group: str
    records: int
    status_ok: Rate
    correct: Rate
    robust: Rate
    passed: Rate  # the record's verdict: correct and robust


def pass_row(group: str, records: list[dict]) -> PassRow:
    return PassRow(group, len(records), rate(records, "status", "ok"),
                   rate(records, "result.correctness_passed"), rate(records, "result.robustness_passed"),
                   Rate(sum(1 for r in records if passed(r)), len(records)))


def level_name(level) -> str:
    return f"level {level}" if level is not None else "no level"


def grouped(records: list[dict], key: Callable[[dict], object]) -> list[tuple[object, list[dict]]]:
    """Records by key, keys in order (numbers before strings; a missing key last)."""
    groups: dict[object, list[dict]] = {}
    for record in records:
        groups.setdefault(key(record), []).append(record)
    return sorted(groups.items(), key=lambda item: (item[0] is None, type(item[0]).__name__,
                                                    item[0] if item[0] is not None else 0))


def pass_rows(records: list[dict]) -> list[PassRow]:
    rows = [pass_row("all", records)]
    rows += [pass_row(level_name(level), group) for level, group in grouped(records, lambda r: r.get("level"))]
    return rows


def geomean(values: list[float]) -> float | None:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


@dataclass(frozen=True)
class SpeedRow:
    group: str
    timed: int  # records with a speedup
    passed: int  # of them, the ones that passed (correct and robust): the geomean's
    geomean: float | None


def speed_row(group: str, records: list[dict]) -> SpeedRow:
    timed = [r for r in records if speedup(r) is not None]
    kept = [r for r in timed if passed(r)]
    return SpeedRow(group, len(timed), len(kept), geomean([speedup(r) for r in kept]))


def speed_rows(records: list[dict]) -> tuple[list[SpeedRow], list[SpeedRow]]:
    """Per level and per category, only groups with at least one speedup."""
    by_level = [speed_row(level_name(k), g) for k, g in grouped(records, lambda r: r.get("level"))]
    by_category = [speed_row(str(k), g) for k, g in grouped(records, lambda r: r.get("category"))]
    return [r for r in by_level if r.timed], [r for r in by_category if r.timed]


def counted(values: Iterable) -> list[tuple[object, int]]:
    """Distinct values with how many records hold each, most first (ties in order first seen)."""
    return Counter(values).most_common()


def distinct(records: list[dict], path: str) -> list[tuple[object, int]]:
    """Each value at `path` and its count; None counts the records that lack the field."""
    return counted(at(r, path) for r in records)


# What the card lists of where the records ran (docs/architecture.md, "The record": GPU, driver, CUDA, jax, jaxlib, triton).
ENVIRONMENT = (("GPU", "environment.gpu_name"), ("driver", "environment.driver"), ("CUDA", "environment.cuda"),
               ("jax", "environment.jax"), ("jaxlib", "environment.jaxlib"), ("triton", "environment.triton"),
               ("Python", "environment.python"), ("JAX backend", "environment.backend"))


def environment(records: list[dict]) -> list[tuple[str, list[tuple[object, int]]]]:
    return [(label, distinct(records, path)) for label, path in ENVIRONMENT]


@dataclass(frozen=True)
class FilterRow:
    name: str
    thresholds: list[tuple[float, int]]  # each threshold the records hold, with its count
    ran: int  # records where the filter ran ("not run: ..." is a candidate that was not correct)
    passed: int


def filter_names(records: list[dict]) -> list[str]:
    """The filters the records hold: in the registry's order, then any it does not know, by name."""
    seen = {name for r in records for name in (at(r, "result.filters") or {})}
    registered = filters.names()
    return [f for f in registered if f in seen] + sorted(seen - set(registered))


def filter_row(name: str, records: list[dict]) -> FilterRow:
    verdicts = [v for v in (at(r, f"result.filters.{name}") for r in records) if isinstance(v, dict)]
    ran = [v for v in verdicts if not str(v.get("reason", "")).startswith("not run:")]
    thresholds = counted(v["threshold"] for v in verdicts if isinstance(v.get("threshold"), (int, float)))
    return FilterRow(name, thresholds, len(ran), sum(1 for v in ran if v.get("passed") is True))


def filter_rows(records: list[dict]) -> list[FilterRow]:
    return [filter_row(name, records) for name in filter_names(records)]


@dataclass(frozen=True)
class TimerSummary:
    timer: str
    records: int
    methods: list[tuple[object, int]]  # `timing.method`: the record's own words for how it timed
    l2_flushed: int
    converged: int
    samples: tuple[int, int] | None  # the fewest and most `timing.samples` of a kernel series
    exits: list[tuple[str, int, str]]  # how the stopping rule ended: exit, count, one example


def stopping_exits(timed: list[dict]) -> list[tuple[str, int, str]]:
    """The kernel's and the reference's series alike: the text before ':' names the exit."""
    states = [s for r in timed for s in (at(r, "timing.stopping"), at(r, "timing.reference.stopping"))
              if isinstance(s, str) and s]
    example = {}
    for state in states:
        example.setdefault(state.split(":")[0], state)
    return [(exit_, n, example[exit_]) for exit_, n in counted(s.split(":")[0] for s in states)]


def timer_summary(timer: str, timed: list[dict]) -> TimerSummary:
    samples = [s for s in (at(r, "timing.samples") for r in timed) if isinstance(s, int)]
    return TimerSummary(
        timer=timer, records=len(timed), methods=distinct(timed, "timing.method"),
        l2_flushed=sum(1 for r in timed if at(r, "timing.l2_flush") is True),
        converged=sum(1 for r in timed if at(r, "timing.converged") is True),
        samples=(min(samples), max(samples)) if samples else None,
        exits=stopping_exits(timed))


def timer_summaries(records: list[dict]) -> list[TimerSummary]:
    timed = [r for r in records if isinstance(r.get("timing"), dict)]
    return [timer_summary(str(timer), group) for timer, group in grouped(timed, lambda r: at(r, "timing.timer"))]


def licenses(records: list[dict]) -> list[tuple[tuple[str, ...], int]]:
    return counted(tuple(r.get("licenses") or ()) for r in records)


def uniform_license(records: list[dict]) -> str | None:
    """The one license every record declares, or None (several, or some records declare none)."""
    seen = licenses(records)
    if len(seen) == 1 and len(seen[0][0]) == 1:
        return seen[0][0][0]
    return None
