"""Device time of timing samples on the GPU: CUPTI activity records, through the harness's
libpallasbench_timer.so (src/timer/), with the L2 flushed before every sample.

One sample: flush the L2 (write a buffer of twice its size, synchronised), mark the sample's
start on CUPTI's clock, call, block_until_ready, mark its end. The timer library assigns every
kernel/memcpy/memset CUPTI saw to the sample that contains it; the flush lies between samples
and belongs to none. Statistics and the stopping rule are the C++ orchestrator's.
"""

from __future__ import annotations

import ctypes
import json
import os
import time
from pathlib import Path

from pallasbench.task import registry


class TimerUnavailable(Exception):
    """The device timer cannot run here (library missing, CUPTI version, no L2 size)."""


def cupti_library() -> Path:
    """The libcupti.so.13 of the nvidia-cuda-cupti package, the one JAX's CUDA plugin loads."""
    try:
        import nvidia
    except ImportError as exc:
        raise TimerUnavailable("the nvidia CUDA pip packages (libcupti) are not installed") from exc
    for base in list(getattr(nvidia, "__path__", [])):
        path = Path(base) / "cu13" / "lib" / "libcupti.so.13"
        if path.exists():
            return path
    raise TimerUnavailable("libcupti.so.13 not found under the nvidia pip packages (nvidia/cu13/lib)")


def timer_library() -> Path:
    env = os.environ.get("PALLASBENCH_TIMER_LIB")
    path = Path(env) if env else registry.project_root() / "build" / "libpallasbench_timer.so"
    if not path.exists():
        raise TimerUnavailable(f"{path} not found (built with the harness when the CUDA headers of "
                               "the venv's nvidia packages are there)")
    return path


def _json_from(fn) -> dict:
    """Calls a size-returning pb_timer_* writer until its JSON fits."""
    cap = 1 << 16
    while True:
        buf = ctypes.create_string_buffer(cap)
        need = fn(buf, ctypes.c_size_t(cap))
        if need <= cap:
            return json.loads(buf.value.decode())
        cap = need


class DeviceTimer:
    """CUPTI-timed samples of a function's calls, L2 flushed before each."""

    def __init__(self):
        import jax
        import jax.numpy as jnp

        lib = ctypes.CDLL(str(timer_library()))
        for name in ("pb_timer_collect", "pb_timer_device"):
            getattr(lib, name).restype = ctypes.c_size_t
        error = ctypes.create_string_buffer(2048)
        if lib.pb_timer_init(str(cupti_library()).encode(), error, ctypes.c_size_t(len(error))):
            raise TimerUnavailable(error.value.decode())
        self._lib = lib
        self.device = _json_from(lib.pb_timer_device)
        l2 = self.device.get("l2_bytes")
        if not l2:
            raise TimerUnavailable("the device's L2 size is unknown (cuDeviceGetAttribute failed): "
                                   "cannot size the L2 flush")
        # Twice the L2 written, then another twice the L2 read: the write evicts whatever the last
        # call left, the read replaces the flush's own dirty lines with clean ones, so the sample
        # starts on a cold, clean L2 (as ncu's --cache-control all leaves it). With the write alone
        # the kernel paid the write-back of 120 MiB of dirty lines: a streaming 67 us kernel read
        # 4% slower than under ncu (H200, 2026-11-30).
        self.flush_bytes = 2 * int(l2)
        self._flush_buffer = jnp.zeros(self.flush_bytes // 4, jnp.int32)
        self._clean_buffer = jnp.ones(self.flush_bytes // 4, jnp.int32)
        self._flush = jax.jit(lambda b: b + 1, donate_argnums=0)
        self._read = jax.jit(lambda b: jnp.max(b))
        self.flush_l2()
        _json_from(lib.pb_timer_collect)  # drop what CUPTI saw before the first sample

    def flush_l2(self):
        self._flush_buffer = self._flush(self._flush_buffer)
        self._read(self._clean_buffer).block_until_ready()

    def sample(self, fn, inputs, count: int, max_seconds: float) -> dict:
        """`count` samples of fn(*inputs), fewer when max_seconds of host time have passed since
        the first began (at least one). The count is the caller's: no stopping rule here."""
        import jax

        wall, cost = [], []
        start = time.perf_counter()
        self.last_output = None
        for i in range(count):
            c0 = time.perf_counter()
            self.flush_l2()
            self._lib.pb_timer_begin_sample()
            t0 = time.perf_counter()
            out = jax.block_until_ready(fn(*inputs))
            t1 = time.perf_counter()
            self._lib.pb_timer_end_sample()
            wall.append((t1 - t0) * 1e6)
            cost.append((time.perf_counter() - c0) * 1e6)
            if i == count - 1 or time.perf_counter() - start >= max_seconds:
                self.last_output = out  # the batch's last timed call: the harness rechecks it
                break
            del out  # the next call allocates as it would without the harness keeping this one
        data = _json_from(self._lib.pb_timer_collect)
        return self._samples_reply(data, wall, cost)

    def _samples_reply(self, data: dict, wall: list[float], cost: list[float]) -> dict:
        samples = data["samples"]
        if len(samples) != len(wall):
            raise RuntimeError(f"device timer: {len(samples)} device samples for {len(wall)} calls")
        if data["straddling"]:
            raise RuntimeError(f"device timer: {data['straddling']} activities crossed a sample's "
                               "boundary (a call returned before its work ended)")
        empty = sum(1 for s in samples if not s["activities"])
        if empty:
            raise RuntimeError(f"device timer: {empty} of {len(samples)} samples launched no device "
                               "work (nothing to time: the call was served without the GPU)")
        kernels: dict[str, dict] = {}
        for s in samples:
            for name, n in s["kernels"].items():
                k = kernels.setdefault(name, {"count": 0, "total_us": 0.0})
                k["count"] += n
                k["total_us"] += s["kernel_us"].get(name, 0.0)
        return {
            "timer": "cupti",
            "samples_us": [s["sum_us"] for s in samples],
            "span_us": [s["span_us"] for s in samples],
            "wall_us": wall,
            "cost_us": cost,
            "sm_clock_mhz": [s["sm_clock_mhz"] for s in samples],
            "kernels": kernels,
            "sample_launches": [s["launches"] for s in samples],
            "outside_activities": data["outside"],
            "l2_flush_bytes": self.flush_bytes,
        }
