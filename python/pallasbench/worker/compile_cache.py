"""JAX's persistent compilation cache for the trusted workers (`--compile-cache DIR`), and whether a
compile hit it, as JAX itself reports it.

Off by default: a record's compile time then means a cold compile. With a folder, every compile
is eligible (no minimum compile time, no minimum entry size) and each compile says whether it was
served from the cache. Only the trusted executor and reference processes are given the folder
(a command-line argument the C++ adds for those roles only); the sandboxed tracer never sees it.

The hit comes from jax.monitoring events, the same names on jax 0.10.2 and 0.11.x
(jax/_src/compiler.py `compile_or_get_cached`, docs/jax_versions.md):
- `/jax/compilation_cache/compile_requests_use_cache`: the compile looked the module up;
- `/jax/compilation_cache/cache_hits`: the lookup found it (the executable was deserialized).
`/jax/compilation_cache/cache_misses` is no miss signal: it is recorded only when an entry is
written, after the compile, and not at all for an entry under the size or time threshold.
So: a lookup without a hit is a miss; no lookup at all (the cache is off, or JAX could not make
a key) is "not known" (null).
"""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path

EVENT_LOOKUP = "/jax/compilation_cache/compile_requests_use_cache"
EVENT_HIT = "/jax/compilation_cache/cache_hits"

_state = {"dir": None}
# Per thread: the executor's background artifact capture compiles beside the main thread, and
# JAX records the events in the compiling thread, so each thread counts its own compiles only.
_counts = threading.local()


def parse_argument(argv: list[str]) -> str | None:
    """The folder after `--compile-cache` in a worker's arguments, or None."""
    if "--compile-cache" not in argv:
        return None
    index = argv.index("--compile-cache")
    if index + 1 >= len(argv) or not argv[index + 1]:
        raise SystemExit("--compile-cache needs a folder")
    return argv[index + 1]


def _listener(event: str, **_kwargs) -> None:
    if event in (EVENT_LOOKUP, EVENT_HIT):
        counts = getattr(_counts, "value", None)
        if counts is not None:
            counts[event] = counts.get(event, 0) + 1


def enable(folder: str) -> None:
    """Turns the persistent cache on for this process, every compile eligible."""
    import jax

    path = Path(folder).resolve()
    path.mkdir(parents=True, exist_ok=True)
    jax.config.update("jax_compilation_cache_dir", str(path))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)  # -1: no size limit, no override
    jax.monitoring.register_event_listener(_listener)
    _state["dir"] = str(path)


def folder() -> str | None:
    return _state["dir"]


@contextlib.contextmanager
def watch():
    """Around one compile: yields a dict that holds, afterwards, {"enabled": bool, "hit": bool or
    None} for the compiles this thread made inside the block (a hit only if every lookup hit)."""
    result = {"enabled": _state["dir"] is not None, "hit": None}
    previous, _counts.value = getattr(_counts, "value", None), {}
    try:
        yield result
    finally:
        counts, _counts.value = _counts.value, previous
        lookups, hits = counts.get(EVENT_LOOKUP, 0), counts.get(EVENT_HIT, 0)
        if lookups:
            result["hit"] = hits == lookups


@contextlib.contextmanager
def never_written():
    """This thread's compiles inside the block write no cache entry (a minimum compile time of
    +inf is above every compile). jax.config.update would set it for every thread; the State
    object in jax._src.config (same name on jax 0.10.2 and 0.11.x) is also a thread-local context
    manager, so the main thread's compiles stay eligible meanwhile."""
    from jax._src import config as jax_config

    with jax_config.persistent_cache_min_compile_time_secs(float("inf")):
        yield
