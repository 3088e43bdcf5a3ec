"""The order in which `make pytest`'s two workers take the test files.

pytest-xdist (--dist loadfile) hands each worker whole files in collection order, given
--no-loadscope-reorder (by default it sorts files by their number of tests, which put the 3-minute
dtype suite last: one worker ran it alone for a minute while the other idled). The slowest files
go first, longest first, and the many quick ones fill in at the end, so both workers finish close
together. The seconds are each file's time on the shared 2-core machine with two workers
(2026-12-03); they only rank the files, so a stale number costs CI time, never a test. A file not
listed goes after these, in collection order: list a new one that takes more than ~15 s.
"""
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

SECONDS = {
    "e2e/test_run.py": 380,
    "e2e/test_adversarial.py": 205,
    "e2e/test_soak.py": 195,
    "e2e/test_dtype_suite.py": 175,
    "e2e/test_reliability.py": 140,
    "python/test_tasks.py": 100,
    "python/test_attention_variants.py": 75,
    "python/test_tuning.py": 25,
    "python/test_genomics_variants.py": 18,
    "python/test_rows_variants.py": 48,
    "e2e/test_trusted_inputs.py": 90,
    "e2e/test_shard.py": 55,
    "e2e/test_api.py": 50,
    "e2e/test_eval.py": 40,
    "e2e/test_cli_compile_cache.py": 35,
    "e2e/test_batch.py": 45,
    "e2e/test_cli_export.py": 25,
    "python/test_roles.py": 20,
    "e2e/test_trace.py": 20,
    "e2e/test_progress.py": 20,
    "python/test_compile_cache.py": 20,
    "e2e/test_html_report.py": 18,
    "python/test_stress.py": 13,
}


def seconds(item) -> int:
    path = Path(item.path)
    return SECONDS.get(path.relative_to(TESTS).as_posix(), 0) if path.is_relative_to(TESTS) else 0


# After pytest's own reordering (fixture scopes); the sort is stable, so each file keeps its order.
@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    items.sort(key=seconds, reverse=True)
