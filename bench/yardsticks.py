#!/usr/bin/env python3
"""JAX's own Pallas GPU kernels (jax.experimental.pallas.ops.gpu) timed beside the suite's kernels
and XLA on the suite's tasks: issue 19's external yardsticks, for softmax, layernorm, rmsnorm and
the attention tasks. bench/ only: the suite never runs these.

Each task at each size: its inputs from its own make_inputs (seed 0, float32), then three
functions on them, each jitted once:
  ours     the task's kernel (tasks/level*/<task>.py);
  jax_ops  the jax.experimental.pallas.ops.gpu kernel of the same math: softmax; layer_norm and
           rms_norm with weight 1 and bias 0 (the tasks are weightless; the extra reads are one
           row each), the rows as one batch (they launch one program per row); mha with the tasks' layouts moved to its (batch, seq, heads, dim) and
           sm_scale 1/sqrt(d), causal for attention_forward;
  xla      the task's reference at the precision the harness times it at (default, TF32, for
           USES_TF32 tasks; highest otherwise).
Times: CUPTI device time per call with the L2 flushed before each sample (the harness's own
timer, python/pallasbench/worker/device_timer.py), median of --samples. Errors: each output
against the task's reference at highest precision, as the relative norm ||out-ref||/||ref||.
A kernel that cannot run at a shape (JAX's ops have their own limits) is reported, not skipped.

Usage (repository root):
  python3 bench/yardsticks.py [--sizes medium,large] [--tasks softmax,...] [--samples 200]
  OUT=/some/dir python3 bench/yardsticks.py       # also writes $OUT/yardsticks.md
  JAX_PLATFORMS=cpu python3 bench/yardsticks.py --cpu-smoke   # SMALL, interpret mode, wall clock
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

TASKS = ["softmax", "layernorm", "rmsnorm", "flash_attention", "multi_head_attention", "attention_forward"]


def jax_ops_fn(task: str, interpret: bool):
    """The ops.gpu kernel computing `task`'s reference, taking the task's inputs as they are."""
    import jax.numpy as jnp
    from jax.experimental.pallas.ops.gpu import attention, layer_norm, rms_norm, softmax

    def affine(fn, x):  # they take (batch, seq, features): the tasks' rows as one batch
        return fn(x[None], jnp.ones(x.shape[-1], x.dtype), jnp.zeros(x.shape[-1], x.dtype), eps=1e-5,
                  interpret=interpret)[0]

    def mha(q, k, v, causal):  # (batch, seq, heads, dim)
        return attention.mha(q, k, v, None, sm_scale=1.0 / math.sqrt(q.shape[-1]), causal=causal,
                             interpret=interpret)

    if task == "softmax":
        return lambda x: softmax.softmax(x, axis=-1, interpret=interpret)
    if task == "layernorm":
        return lambda x: affine(layer_norm.layer_norm, x)
    if task == "rmsnorm":
        return lambda x: affine(rms_norm.rms_norm, x)
    if task == "flash_attention":  # (seq, d): one batch, one head
        return lambda q, k, v: mha(q[None, :, None], k[None, :, None], v[None, :, None], False)[0, :, 0]
    if task == "multi_head_attention":  # (heads, seq, d)
        def heads_first(q, k, v):
            t = lambda a: jnp.swapaxes(a, 0, 1)[None]
            return jnp.swapaxes(mha(t(q), t(k), t(v), False)[0], 0, 1)
        return heads_first
    if task == "attention_forward":  # (batch, heads, seq, d), causal
        t = lambda a: jnp.swapaxes(a, 1, 2)
        return lambda q, k, v: t(mha(t(q), t(k), t(v), True))
    raise ValueError(f"no jax.experimental.pallas.ops.gpu kernel for '{task}'")


def median_us(fn, inputs, samples: int, timer) -> float:
    import jax

    jax.block_until_ready(fn(*inputs))  # compile and warm up
    jax.block_until_ready(fn(*inputs))
    if timer is not None:
        times = timer.sample(fn, inputs, samples, 30.0)["samples_us"]
        timer.last_output = None
    else:
        times = []
        for _ in range(samples):
            t0 = time.perf_counter()
            jax.block_until_ready(fn(*inputs))
            times.append((time.perf_counter() - t0) * 1e6)
    return statistics.median(times)


def rel_norm(out, ref) -> float:
    import numpy as np

    out, ref = np.asarray(out, np.float64), np.asarray(ref, np.float64)
    return float(np.linalg.norm(out - ref) / max(np.linalg.norm(ref), 1e-30))


def measure(task: str, size: str, samples: int, timer, interpret: bool) -> dict:
    import jax
    import numpy as np

    from pallasbench.task import registry

    module = registry.load(task)
    inputs = [jax.device_put(np.asarray(a)) for a in
              module.make_inputs(np.random.default_rng(0), module.SHAPES[size])]
    with jax.default_matmul_precision("highest"):
        ref = jax.jit(module.reference)(*inputs)
    precision = "default" if getattr(module, "USES_TF32", False) else "highest"

    def xla(*xs):
        with jax.default_matmul_precision(precision):
            return module.reference(*xs)

    row = {"task": task, "size": size}
    for name, fn in (("ours", module.kernel), ("jax_ops", jax_ops_fn(task, interpret)), ("xla", xla)):
        try:
            jitted = jax.jit(fn)
            row[name] = median_us(jitted, inputs, samples, timer)
            row[name + "_err"] = rel_norm(jitted(*inputs), ref)
        except Exception as exc:  # one kernel's limit must not hide the others' numbers
            row[name] = None
            row[name + "_err"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}"
    return row


def table(rows: list[dict], timer_name: str) -> str:
    lines = [f"times: median per call ({timer_name}); err: ||out-ref||/||ref|| against the task's reference "
             "at highest precision", "",
             "| task | size | ours | jax ops.gpu | XLA | ours vs ops.gpu | ours vs XLA | err ours | err ops.gpu | err XLA |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    cell = lambda us: f"{us:.1f} us" if us is not None else "-"
    ratio = lambda a, b: f"{b / a:.2f}x" if a and b else "-"
    err = lambda e: f"{e:.1e}" if isinstance(e, float) else str(e)
    for r in rows:
        lines.append(f"| {r['task']} | {r['size']} | {cell(r['ours'])} | {cell(r['jax_ops'])} | {cell(r['xla'])} | "
                     f"{ratio(r['ours'], r['jax_ops'])} | {ratio(r['ours'], r['xla'])} | {err(r['ours_err'])} | "
                     f"{err(r['jax_ops_err'])} | {err(r['xla_err'])} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="medium,large")
    parser.add_argument("--tasks", default=",".join(TASKS))
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--cpu-smoke", action="store_true", help="SMALL, interpret mode, wall clock, 3 samples")
    args = parser.parse_args()
    from pallasbench.worker import interpret

    timer, timer_name = None, "wall clock"
    if args.cpu_smoke:
        interpret.enable_interpret_default()
        sizes, samples = ["small"], 3
    else:
        from pallasbench.worker import device_timer

        timer, timer_name = device_timer.DeviceTimer(), "CUPTI, L2 flushed"
        sizes, samples = args.sizes.split(","), args.samples
    rows = [measure(task, size, samples, timer, args.cpu_smoke)
            for size in sizes for task in args.tasks.split(",")]
    text = table(rows, timer_name)
    print(text)
    if os.environ.get("OUT"):
        Path(os.environ["OUT"], "yardsticks.md").write_text(text)
    broken = [r for r in rows if any(r[k] is None for k in ("ours", "jax_ops", "xla"))]
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
