import pytest

from e2e_support import harness_env


@pytest.fixture(scope="session")
def env():
    return harness_env()
