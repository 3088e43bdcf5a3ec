"""Timing samples of a warm, compiled function: device time from CUPTI on a GPU, host wall clock
in CPU interpret mode. Shared by the executor (candidate kernels) and the reference process
(the XLA baseline), so both are sampled the same way."""

from __future__ import annotations

import time

from pallasbench import device_timer, interpret


class Sampler:
    """Loads the device timer on first use and keeps it (one CUPTI subscriber per process)."""

    def __init__(self):
        self._timer, self._timer_error = None, None
        self.last_output = None

    def device_timer(self):
        """(DeviceTimer, None) on a GPU where the timer loads; else (None, why not)."""
        if interpret.on_cpu():
            return None, None
        if self._timer is None and self._timer_error is None:
            try:
                self._timer = device_timer.DeviceTimer()
            except device_timer.TimerUnavailable as exc:
                self._timer_error = str(exc)
        return self._timer, self._timer_error

    def timed(self, fn, inputs, req) -> dict:
        """inputs: device arrays placed once per set of files (timing comes in batches).
        self.last_output is the output of the batch's last timed call."""
        warm_up(fn, inputs, int(req.get("warmup", 0)))
        timer, error = self.device_timer()
        if timer is not None:
            reply = timer.sample(fn, inputs, int(req.get("max_samples", 1000)), float(req.get("max_seconds", 5.0)))
            self.last_output, timer.last_output = timer.last_output, None
            return reply
        samples, self.last_output = wall_samples(fn, inputs, req)
        reply = {"timer": "wall", "samples_us": samples}
        if error:
            reply["timer_error"] = error
        return reply


def warm_up(fn, inputs, minimum: int):
    """At least `minimum` calls, more (up to 50) while calls still get faster: first-call
    allocation, autotuning and caches settle before any sample counts."""
    import jax

    if minimum <= 0:
        return
    times = []
    while len(times) < 50:
        t0 = time.perf_counter()
        jax.block_until_ready(fn(*inputs))
        times.append(time.perf_counter() - t0)
        if len(times) >= max(minimum, 3) and times[-1] <= 1.25 * min(times[-3:-1]):
            return


def wall_samples(fn, inputs, req) -> tuple[list[float], object]:
    """Wall-clock samples of fn(*inputs) in microseconds, each ending with block_until_ready,
    until both min_samples and min_seconds are reached, or max_samples / max_seconds end it;
    and the last call's output."""
    import jax

    samples: list[float] = []
    start = time.perf_counter()
    while True:
        t0 = time.perf_counter()
        out = jax.block_until_ready(fn(*inputs))
        samples.append((time.perf_counter() - t0) * 1e6)
        elapsed = time.perf_counter() - start
        enough = len(samples) >= req.get("min_samples", 10) and elapsed >= req.get("min_seconds", 0.2)
        if enough or len(samples) >= req.get("max_samples", 1000) or elapsed >= req.get("max_seconds", 5.0):
            return samples, out
        del out


class DeviceInputs:
    """Device copies of a set of .npy files, read and placed once per set (timing comes in
    batches); dropped when the process moves on."""

    def __init__(self):
        self._key, self._arrays = None, None

    def get(self, paths):
        import jax

        key = tuple(paths)
        if self._key != key:
            self._key = key
            self._arrays = [jax.device_put(x) for x in load_inputs(paths)]
        return self._arrays

    def drop(self):
        self._key, self._arrays = None, None


def load_inputs(paths: list[str]):
    import numpy as np

    # Memory-mapped: device_put reads the file once, with no host copy in between.
    return [np.load(p, allow_pickle=False, mmap_mode="r") for p in paths]


def save(path: str, array) -> dict:
    import numpy as np

    out = np.asarray(array)
    np.save(path, out, allow_pickle=False)
    return {"path": path, "shape": list(out.shape), "dtype": out.dtype.name}
