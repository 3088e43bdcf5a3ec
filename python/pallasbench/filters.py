"""The robustness filters as the harness registers them (src/check/filters/registry.cpp): each
one's name, what it checks, how its value must compare with its threshold to pass, and the
threshold. The record schema, the dataset card and the tests read the list from here.

The list comes from the binary itself (`pallasbench filters --format json`), not from a copy in
the repository: a checked-in copy is one more file that every new filter must regenerate, and a
test to catch when it was not. Every caller already runs beside the binary: `export` and `report`
are started by it (it sets $PALLASBENCH_BINARY to itself), the tests run after the build. Asked
once per process.
"""
from __future__ import annotations

import functools
import json
import subprocess
from dataclasses import dataclass

from pallasbench import api

DIRECTIONS = (">=", "<=", "reason-only")  # pass_direction's names (filter.hpp)


@dataclass(frozen=True)
class FilterDescription:
    name: str
    checks: str
    direction: str  # one of DIRECTIONS
    threshold: float | None  # None when reason-only
    threshold_varies_with: str  # "" when fixed; else what sets it (threshold is then the default)

    @property
    def passes_when(self) -> str:
        """The rule without the number (each record holds the threshold it was judged by)."""
        return "no reason to refuse" if self.direction == "reason-only" else f"value {self.direction} threshold"


def parse(text: str) -> tuple[FilterDescription, ...]:
    """`pallasbench filters --format json`'s output; anything else is an error naming the entry."""
    out = []
    for i, entry in enumerate(json.loads(text)):
        try:
            description = FilterDescription(entry["name"], entry["checks"], entry["direction"], entry["threshold"],
                                            entry["threshold_varies_with"])
        except (KeyError, TypeError) as exc:
            raise ValueError(f"pallasbench filters: entry {i} lacks {exc}: {entry!r}") from exc
        if description.direction not in DIRECTIONS:
            raise ValueError(f"pallasbench filters: {description.name}: unknown direction {description.direction!r}")
        out.append(description)
    return tuple(out)


@functools.cache
def descriptions() -> tuple[FilterDescription, ...]:
    """Every registered filter, in the registry's order."""
    binary = api.binary()
    proc = subprocess.run([str(binary), "filters", "--format", "json"], capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        raise RuntimeError(f"{binary} filters --format json exited {proc.returncode}: {proc.stderr.strip()[-500:]}")
    return parse(proc.stdout)


def names() -> tuple[str, ...]:
    return tuple(d.name for d in descriptions())


def by_name() -> dict[str, FilterDescription]:
    return {d.name: d for d in descriptions()}
