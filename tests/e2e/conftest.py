import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))  # pallasbench.record_schema

from e2e_support import harness_env  # noqa: E402


@pytest.fixture(scope="session")
def env():
    return harness_env()
