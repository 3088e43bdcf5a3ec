"""The order in which `make pytest`'s two workers take the test files.

pytest-xdist (--dist loadfile) hands each worker whole files in collection order, given
--no-loadscope-reorder (by default it sorts files by their number of tests, which put the 3-minute
dtype suite last: one worker ran it alone for a minute while the other idled). The slowest files
go first, longest first, and the many quick ones fill in at the end, so both workers finish close
together. The seconds are each file's time on the shared 2-core machine with two workers
(2026-12-06, `pytest --durations=0`); they only rank the files, so a stale number costs CI time, never a test. A file not
listed goes after these, in collection order: list a new one that takes more than ~8 s.
"""
import os
from pathlib import Path

import pytest

# One OpenBLAS thread a process: the two test workers and the harness processes they start already
# fill both cores, and idle OpenBLAS threads spin on them.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# The tests' XLA compiles at LLVM -O0, in pytest's processes and the harness's trusted workers
# (which inherit the environment): no test measures speed, and compiling the interpret-mode
# modules was a third of a SMALL suite run's CPU time (the suite's run 64.3 -> 54.8 user-s,
# bench/results/2026-12-06-cpu/session4/README.md). The results can differ from -O2's in the last
# bits (3 of 69 tasks' max errors, by an ulp or two): every tolerance the tests meet is far wider.
# A user's runs (`make run`, the CLI) keep XLA's defaults.
if "--xla_backend_optimization_level" not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_backend_optimization_level=0").strip()

TESTS = Path(__file__).resolve().parent

SECONDS = {
    "e2e/test_run.py": 119,
    "e2e/test_adversarial.py": 91,
    "python/test_attention_variants.py": 66,
    "e2e/test_trusted_inputs.py": 63,
    "e2e/test_dtype_suite.py": 59,
    "python/test_rows_variants.py": 48,
    "e2e/test_reliability.py": 47,
    "e2e/test_soak.py": 37,
    "e2e/test_cli_export.py": 29,
    "e2e/test_batch.py": 28,
    "python/test_tuning.py": 26,
    "python/test_tasks.py": 25,
    "e2e/test_eval.py": 23,
    "e2e/test_shard.py": 22,
    "e2e/test_api.py": 22,
    "e2e/test_job_config.py": 19,
    "python/test_mosaic_families.py": 19,
    "python/test_mosaic_genomics.py": 17,
    "python/test_mosaic_matmul.py": 19,
    "python/test_mosaic_attention.py": 18,
    "e2e/test_host_memory.py": 18,
    "e2e/test_containment.py": 17,
    "python/test_scatter_add.py": 16,
    "e2e/test_cli_compile_cache.py": 13,
    "e2e/test_backends.py": 12,
    "python/test_genomics_variants.py": 12,
    "e2e/test_progress.py": 11,
    "e2e/test_trace.py": 9,
    "e2e/test_html_report.py": 12,
    "e2e/test_compare.py": 9,
    "e2e/test_sweep.py": 8,
}


# The bench/variants/*.py files' checks (tests/python/test_*_variants.py, `pytestmark =
# pytest.mark.bench_variants`: each tuning variant correct at SMALL in interpret mode and lowering
# for CUDA at MEDIUM and LARGE) are a preflight of bench/probe.py's inputs, which the probe checks
# again on the GPU before it times them. `make test-variants` runs them (bench/README.md: before a
# probe); `make test` leaves them out (about a minute of the 2-core CI machine).
def pytest_configure(config):
    config.addinivalue_line("markers", "bench_variants: a bench/variants file's preflight (make test-variants)")


def seconds(item) -> int:
    path = Path(item.path)
    return SECONDS.get(path.relative_to(TESTS).as_posix(), 0) if path.is_relative_to(TESTS) else 0


# After pytest's own reordering (fixture scopes); the sort is stable, so each file keeps its order.
@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    items.sort(key=seconds, reverse=True)
