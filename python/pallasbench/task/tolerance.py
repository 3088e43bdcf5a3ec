"""Tolerances of the task checks (docs/tasks.md: upper bounds; a task may be stricter, never looser)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Tolerance:
    """|out-ref| <= atol + rtol*|ref| elementwise, and ||out-ref||/||ref|| <= rel_norm."""

    atol: float
    rtol: float
    rel_norm: float

    def as_dict(self) -> dict:
        return {"atol": self.atol, "rtol": self.rtol, "rel_norm": self.rel_norm}


EXACT = Tolerance(0.0, 0.0, 0.0)
ELEMENTWISE = Tolerance(1e-5, 1e-5, 1e-5)
TRANSCENDENTAL = Tolerance(1e-5, 1e-4, 1e-5)
MATMUL = Tolerance(1e-2, 1e-2, 2e-3)
ATOMIC_SUM = Tolerance(1e-4, 1e-4, 1e-4)
