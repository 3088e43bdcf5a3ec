import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BINARY = ROOT / "build" / "pallasbench"
CANDIDATES = Path(__file__).resolve().parent / "candidates"


def harness_env():
    """The harness's environment: workers run on the CPU with the Python running these tests."""
    if not BINARY.exists():
        pytest.fail(f"{BINARY} is missing: build first (make build)")
    return {**os.environ, "PALLASBENCH_PYTHON": sys.executable}


def run_cli(env, *args, timeout=300, **kwargs):
    return subprocess.run([str(BINARY), *map(str, args)], env=env, capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, **kwargs)


def phases_add_up(record: dict, within: float = 0.05) -> bool:
    """The record's phases sum to its wall time, within `within` of it."""
    phases = record["phases"]
    total = sum(v for k, v in phases.items() if k != "wall_s")
    return abs(total - phases["wall_s"]) <= within * phases["wall_s"]
