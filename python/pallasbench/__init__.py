"""PallasBench's Python side: the worker the C++ harness drives, the task vocabulary, and the
Python API over the binary (`pallasbench.tasks`, `pallasbench.evaluate`, `pallasbench.run`, `pallasbench.compare`, `pallasbench.read_records`:
pallasbench/api.py) and the scores over records (`fast_p`, `pass_at_k`, `to_pandas`:
pallasbench/metrics.py), loaded on first use so that workers importing the package pay nothing."""

_API = ("tasks", "evaluate", "run", "compare", "read_records", "UsageError", "HarnessError")
_METRICS = ("fast_p", "pass_at_k", "to_pandas")


def __getattr__(name):
    if name in _API:
        from pallasbench import api

        return getattr(api, name)
    if name in _METRICS:
        from pallasbench import metrics

        return getattr(metrics, name)
    raise AttributeError(f"module 'pallasbench' has no attribute '{name}'")
