#!/usr/bin/env python3
"""JAX's own Pallas GPU kernels (jax.experimental.pallas.ops.gpu) timed beside the suite's kernels,
each of its backends, and XLA on the suite's tasks: issue 38's yardsticks (issue 19's first). bench/
only: the suite never runs these.

Each task at each size and dtype: its inputs from its own make_inputs (seed 0), rounded to the
dtype as the harness draws them; then, each jitted once:
  ours (one column per backend: mosaic_gpu, triton) the task's implementations (registry);
  yardsticks, JAX's kernels of the same math:
    ops.gpu (Triton): softmax; layer_norm and rms_norm with weight 1 and bias 0 (the tasks are
      weightless; the extra reads are one row each), the rows as one batch; mha with the tasks'
      layouts moved to its (batch, seq, heads, dim) and sm_scale 1/sqrt(d), causal for
      attention_forward;
    attention_mgpu (Mosaic GPU, FlashAttention-3 style; bfloat16/float16, head_dim % 64 == 0):
      q given already scaled by 1/sqrt(d) (it applies no scale), the best of block_kv 64/128/256
      (block_q 64, two steps in flight, as its own benchmark does);
    hopper_matmul_mgpu (Mosaic GPU; bfloat16/float16): matmul, the best of a few tilings from its
      own benchmark's grid;
    tokamax: not installed on the GPU machine (no network there, no wheel carried): not run;
  xla the task's reference at the precision the harness times it at (default, TF32, for
      USES_TF32 tasks and at 16-bit dtypes; highest otherwise).
Times: CUPTI device time per call with the L2 flushed before each sample (the harness's own
timer, python/pallasbench/worker/device_timer.py), median of --samples. Errors: each output
against the task's reference at highest precision in float32, as ||out-ref||/||ref||. A kernel
that cannot run at a shape (each has its limits) is reported with its error, not skipped. A row
is flagged when the better of ours is more than 5% behind the best yardstick (issue 38's bar).

Usage (repository root):
  python3 bench/yardsticks.py [--sizes medium,large] [--dtypes float32,bfloat16] [--tasks softmax,...]
  OUT=/some/dir python3 bench/yardsticks.py       # also writes $OUT/yardsticks.md and .jsonl
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

TASKS = ["softmax", "layernorm", "rmsnorm", "flash_attention", "multi_head_attention", "attention_forward",
         "matmul"]
BAR = 1.05  # the better of ours may be at most 5% slower than the best yardstick


def _to_bshd(task: str):
    """(to, back): the task's q/k/v layout to (batch, seq, heads, dim) and the output back."""
    import jax.numpy as jnp

    if task == "flash_attention":  # (seq, d): one batch, one head
        return (lambda a: a[None, :, None]), (lambda o: o[0, :, 0])
    if task == "multi_head_attention":  # (heads, seq, d)
        return (lambda a: jnp.swapaxes(a, 0, 1)[None]), (lambda o: jnp.swapaxes(o[0], 0, 1))
    if task == "attention_forward":  # (batch, heads, seq, d)
        return (lambda a: jnp.swapaxes(a, 1, 2)), (lambda o: jnp.swapaxes(o, 1, 2))
    raise ValueError(task)


def yardsticks(task: str, interpret: bool) -> dict:
    """{name: [fn, ...]}: JAX's kernels computing `task`'s reference from the task's inputs (the
    best of each list is kept: a kernel's own tuning choices)."""
    import jax.numpy as jnp
    from jax.experimental.pallas.ops.gpu import attention, layer_norm, rms_norm, softmax

    def affine(fn, x):  # they take (batch, seq, features): the tasks' rows as one batch
        return fn(x[None], jnp.ones(x.shape[-1], x.dtype), jnp.zeros(x.shape[-1], x.dtype), eps=1e-5,
                  interpret=interpret)[0]

    if task == "softmax":
        return {"ops.gpu": [lambda x: softmax.softmax(x, axis=-1, interpret=interpret)]}
    if task == "layernorm":
        return {"ops.gpu": [lambda x: affine(layer_norm.layer_norm, x)]}
    if task == "rmsnorm":
        return {"ops.gpu": [lambda x: affine(rms_norm.rms_norm, x)]}
    if task == "matmul":
        return {"hopper_matmul_mgpu": _hopper_matmuls()}
    to, back = _to_bshd(task)
    causal = task == "attention_forward"

    def mha(q, k, v):
        return back(attention.mha(to(q), to(k), to(v), None, sm_scale=1.0 / math.sqrt(q.shape[-1]),
                                  causal=causal, interpret=interpret))

    return {"ops.gpu": [mha], "attention_mgpu": _mgpu_attentions(to, back, causal)}


def _mgpu_attentions(to, back, causal: bool) -> list:
    from jax.experimental.pallas.ops.gpu import attention_mgpu as mgpu

    def make(block_kv):
        config = mgpu.TuningConfig(block_q=64, block_kv=block_kv, max_concurrent_steps=2, causal=causal)
        return lambda q, k, v: back(mgpu.attention(to(q), to(k), to(v), config))

    return [make(block_kv) for block_kv in (64, 128, 256)]


def _hopper_matmuls() -> list:
    from jax.experimental.pallas.ops.gpu import hopper_matmul_mgpu as mgpu

    dim = mgpu.MatmulDimension

    def make(tile_m, tile_n, minor, width):
        config = mgpu.TuningConfig(tile_m=tile_m, tile_n=tile_n, tile_k=64, max_concurrent_steps=4,
                                   grid_minor_dim=minor, grid_tile_width=width, wg_dimension=dim.N)
        return lambda a, b: mgpu.matmul(a, b, None, config)

    return [make(tm, tn, minor, width) for tm in (128, 256) for tn in (128,) for minor in (dim.M, dim.N)
            for width in (4, 8)]


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


def _inputs(module, size: str, dtype: str, prescale_q: bool):
    import jax
    import jax.numpy as jnp
    import numpy as np

    from pallasbench.task import dtypes

    arrays = module.make_inputs(np.random.default_rng(0), module.SHAPES[size])
    out = [jnp.asarray(dtypes.round_to(a, dtype), dtype) if np.asarray(a).dtype == np.float32 else jnp.asarray(a)
           for a in arrays]
    if prescale_q:  # attention_mgpu applies no 1/sqrt(d): its q comes scaled, outside the timing
        out[0] = (out[0].astype(jnp.float32) / math.sqrt(out[0].shape[-1])).astype(out[0].dtype)
    return [jax.device_put(a) for a in out]


def _timed(fns, inputs, ref, samples, timer) -> tuple:
    """(best median us, its error) over `fns`; (None, the last error text) when none runs."""
    import jax

    best, best_err, last_error = None, None, "no function"
    for fn in fns:
        try:
            jitted = jax.jit(fn)
            us = median_us(jitted, inputs, samples, timer)
            if best is None or us < best:
                best, best_err = us, rel_norm(jitted(*inputs), ref)
        except Exception as exc:  # one kernel's limit must not hide the others' numbers
            last_error = f"{type(exc).__name__}: {str(exc).splitlines()[0][:120] if str(exc) else ''}"
    return (best, best_err) if best is not None else (None, last_error)


def measure(task: str, size: str, dtype: str, samples: int, timer, interpret: bool) -> dict:
    import jax
    import jax.numpy as jnp

    from pallasbench.task import registry

    module = registry.load(task)
    inputs = _inputs(module, size, dtype, prescale_q=False)
    f32 = [a.astype(jnp.float32) if jnp.issubdtype(a.dtype, jnp.floating) else a for a in inputs]
    with jax.default_matmul_precision("highest"):
        ref = jax.jit(module.reference)(*f32)
    tf32 = getattr(module, "USES_TF32", False) or dtype != "float32"
    precision = "default" if tf32 else "highest"

    def xla(*xs):
        with jax.default_matmul_precision(precision):
            return module.reference(*xs)

    row = {"task": task, "size": size, "dtype": dtype, "ours": {}, "yardsticks": {}}
    if interpret:
        implementations = {"triton": module.kernel}
    else:
        implementations = registry.implementations(module)
    for backend, fn in implementations.items():
        row["ours"][backend] = _timed([fn], inputs, ref, samples, timer)
    for name, fns in yardsticks(task, interpret).items():
        scaled = name == "attention_mgpu"
        row["yardsticks"][name] = _timed(fns, _inputs(module, size, dtype, scaled) if scaled else inputs, ref,
                                         samples, timer)
    row["xla"] = _timed([xla], inputs, ref, samples, timer)
    ours = [us for us, _ in row["ours"].values() if us is not None]
    theirs = [us for us, _ in row["yardsticks"].values() if us is not None]
    row["behind"] = bool(ours and theirs and min(ours) > BAR * min(theirs))
    return row


def table(rows: list[dict], timer_name: str) -> str:
    backends = sorted({b for r in rows for b in r["ours"]})
    sticks = sorted({y for r in rows for y in r["yardsticks"]})
    lines = [f"times: median per call ({timer_name}); err: ||out-ref||/||ref|| against the task's reference "
             "at highest precision; ratio: the best yardstick's time over the better of ours (above 1: ours "
             f"faster); BEHIND: ours more than {round((BAR - 1) * 100)}% slower than a yardstick", "",
             "| task | size | dtype | " + " | ".join(f"ours {b}" for b in backends) + " | "
             + " | ".join(sticks) + " | XLA | ours vs yardstick | ours vs XLA | errors |",
             "|---" * (7 + len(backends) + len(sticks)) + "|"]
    cell = lambda pair: f"{pair[0]:.1f} us" if pair and pair[0] is not None else "-"
    err = lambda pair: f"{pair[1]:.1e}" if isinstance(pair[1], float) else str(pair[1])
    for r in rows:
        ours = min((p[0] for p in r["ours"].values() if p[0] is not None), default=None)
        theirs = min((p[0] for p in r["yardsticks"].values() if p[0] is not None), default=None)
        vs_stick = f"{theirs / ours:.2f}x" if ours and theirs else "-"
        vs_xla = f"{r['xla'][0] / ours:.2f}x" if ours and r["xla"][0] else "-"
        errors = "; ".join(f"{name} {err(pair)}" for name, pair in
                           [*((f"ours {b}", p) for b, p in r["ours"].items()), *r["yardsticks"].items(),
                            ("XLA", r["xla"])])
        lines.append(f"| {r['task']} | {r['size']} | {r['dtype']} | "
                     + " | ".join(cell(r["ours"].get(b)) for b in backends) + " | "
                     + " | ".join(cell(r["yardsticks"].get(y)) for y in sticks)
                     + f" | {cell(r['xla'])} | {vs_stick}{' BEHIND' if r['behind'] else ''} | {vs_xla} | {errors} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    import json

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="medium,large")
    parser.add_argument("--dtypes", default="float32,bfloat16")
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
    rows = []
    for size in sizes:
        for dtype in args.dtypes.split(","):
            for task in args.tasks.split(","):
                rows.append(measure(task, size, dtype, samples, timer, args.cpu_smoke))
                print(json.dumps(rows[-1]), flush=True)
    text = table(rows, timer_name)
    print(text)
    if os.environ.get("OUT"):
        Path(os.environ["OUT"], "yardsticks.md").write_text(text)
        Path(os.environ["OUT"], "yardsticks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    broken = [r for r in rows if r["xla"][0] is None or any(p[0] is None for p in r["ours"].values())]
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
