"""Timing samples of a warm, compiled function: device time from CUPTI on a GPU, host wall clock
in CPU interpret mode. Shared by the executor (candidate kernels) and the reference process
(the XLA baseline), so both are sampled the same way.

The counts come from the request (protocol.TimingRequest): exactly `warmup` untimed calls, then
`samples` timed ones unless `max_seconds` runs out first. When warm-up has settled, how many
samples make enough and how large a batch is are the harness's rules (src/measure/), not these
loops': the warm-up calls' own times go back in the reply for it to judge.
"""

from __future__ import annotations

import time

from pallasbench.worker import device_timer, interpret


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

    def timed(self, fn, inputs, batch) -> dict:
        """One batch of a protocol.TimingRequest. inputs: device arrays placed once per set of
        files (timing comes in batches). self.last_output is the output of the batch's last
        timed call."""
        warmup_us = warm_up(fn, inputs, batch.warmup)
        timer, error = self.device_timer()
        if timer is not None:
            reply = timer.sample(fn, inputs, batch.samples, batch.max_seconds)
            self.last_output, timer.last_output = timer.last_output, None
            return reply | {"warmup_us": warmup_us}
        samples, self.last_output = wall_samples(fn, inputs, batch.samples, batch.max_seconds)
        reply = {"timer": "wall", "samples_us": samples, "warmup_us": warmup_us}
        if error:
            reply["timer_error"] = error
        return reply


def warm_up(fn, inputs, calls: int) -> list[float]:
    """Exactly `calls` untimed calls; the host wall time of each, in microseconds."""
    import jax

    times = []
    for _ in range(calls):
        t0 = time.perf_counter()
        jax.block_until_ready(fn(*inputs))
        times.append((time.perf_counter() - t0) * 1e6)
    return times


def wall_samples(fn, inputs, count: int, max_seconds: float) -> tuple[list[float], object]:
    """Wall-clock samples of fn(*inputs) in microseconds, each ending with block_until_ready:
    `count` of them, fewer when max_seconds have passed since the first began (at least one);
    and the last call's output."""
    import jax

    samples: list[float] = []
    start = time.perf_counter()
    while True:
        t0 = time.perf_counter()
        out = jax.block_until_ready(fn(*inputs))
        samples.append((time.perf_counter() - t0) * 1e6)
        if len(samples) >= count or time.perf_counter() - start >= max_seconds:
            return samples, out
        del out  # the next call allocates as it would without the harness keeping this one
