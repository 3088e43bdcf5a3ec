"""Probe the Mosaic GPU families (kernels/mosaic_elementwise, mosaic_rows, mosaic_reductions,
mosaic_columns) on a GPU: each task's Mosaic kernel against its float64 reference, and its time
beside the task's Triton kernel (task.kernel, its shipped tuning) and XLA (task.reference at the
dtype), all timed by CUPTI (jax.experimental.mosaic.gpu.profiler.measure: the summed kernel time
of one call, the median of --iters calls after one warm-up call).

Correctness: max over elements of |out - ref| / (atol + rtol |ref|), ref the task's reference
on the same inputs in float64 (rounded to the dtype at bfloat16), the bound the task's tolerance
at float32 and the dtype's at bfloat16 (docs/dtypes.md); the relative norm error beside it.
This is a sanity check of the kernels on the seed inputs, not the harness's verdict (no stress
cases, no filters).

Lines go to OUT/results.jsonl as each (task, dtype) finishes; a task whose run kills the process
is written as started and not finished, so a rerun with --resume skips it. `--deadline` (seconds
since the epoch) stops starting new work past it. summary.md is rebuilt from results.jsonl.

  python3 bench/mosaic_families_probe.py --out DIR [--sizes medium] [--dtypes float32,bfloat16]
      [--tasks a,b] [--iters 20] [--deadline EPOCH] [--resume] [--summary-only]

On the device machine (python3 there has jax 0.11.2), a run that survives a crashing kernel:
  R=$OUT/r; D=$(( $(date +%s) + 240 )); for i in 1 2 3; do A=""; [ $i -gt 1 ] && A=--resume;
  PYTHONUNBUFFERED=1 python3 bench/mosaic_families_probe.py --out $R --iters 10 --deadline $D $A
  >> $R/log.txt 2>&1 && break; done; python3 bench/mosaic_families_probe.py --out $R --summary-only
Not run yet (2026-12-06: no device machine could be started for the helper that wrote it).
"""

import argparse
import concurrent.futures as futures
import json
import os
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

from pallasbench.kernels import (mosaic_columns, mosaic_elementwise, mosaic_reductions,  # noqa: E402
                                 mosaic_rows)
from pallasbench.task import dtypes, registry  # noqa: E402

FAMILIES = {"elementwise": mosaic_elementwise, "rows": mosaic_rows, "reductions": mosaic_reductions,
            "columns": mosaic_columns}
FAMILY_OF = {task: family for family, module in FAMILIES.items() for task in module.KERNELS}


def device_inputs(task, size, dtype):
    arrays = task.make_inputs(np.random.default_rng(0), task.SHAPES[size])
    host = [np.asarray(a) for a in arrays]
    return host, [jnp.asarray(a, dtype) if a.dtype == np.float32 else jnp.asarray(a) for a in host]


def reference(task, dtype, host):
    """The task's reference in float64 on the dtype's inputs, rounded to the dtype."""
    rounded = [dtypes.round_to(a, dtype) for a in host]
    with jax.enable_x64(True):
        ref = np.asarray(jax.jit(task.reference)(*[jnp.asarray(a, np.float64) if a.dtype == np.float32
                                                   else jnp.asarray(a) for a in rounded]))
    return dtypes.round_to(ref.astype(np.float32), dtype).astype(np.float64)


def errors(task, dtype, out, ref):
    """(max |out - ref| / bound, relative norm error, the tolerance)."""
    out = np.asarray(jnp.asarray(out, jnp.float32), np.float64)
    tol = dtypes.tolerances(task)[dtype]
    bound = tol["atol"] + tol["rtol"] * np.abs(ref)
    norm = float(np.linalg.norm(out - ref) / max(np.linalg.norm(ref), 1e-30))
    return float(np.max(np.abs(out - ref) / bound)), norm, tol


def timed(compiled, args, iters):
    from jax.experimental.mosaic.gpu import profiler

    jax.block_until_ready(compiled(*args))
    _, times = profiler.measure(compiled, iterations=iters)(*args)
    return float(np.median(times)) * 1e3  # microseconds


def implementations(task, name):
    mosaic = FAMILIES[FAMILY_OF[name]].KERNELS[name]
    return {"mosaic": lambda *xs: mosaic(*xs, interpret=None), "triton": task.kernel, "xla": task.reference}


def prepare(name, size, dtype, pool):
    """Inputs on the device, each implementation lowered here and compiled on the pool."""
    task = registry.load(name)
    host, xs = device_inputs(task, size, dtype)
    record = {"task": name, "family": FAMILY_OF[name], "size": size, "dtype": dtype}
    jobs = {}
    for impl, fn in implementations(task, name).items():
        t0 = time.time()
        try:
            lowered = jax.jit(fn).lower(*xs)
        except Exception as e:  # noqa: BLE001 - the probe records every failure and goes on
            record[f"{impl}_error"] = f"lower: {type(e).__name__}: {e}"[:2000]
            continue
        record[f"{impl}_lower_s"] = round(time.time() - t0, 3)
        jobs[impl] = pool.submit(lambda low: (time.time(), low.compile(), time.time()), lowered)
    return task, host, xs, record, jobs


def finish(prepared, iters):
    """Check the Mosaic kernel's (and XLA's) outputs, time the three."""
    task, host, xs, record, jobs = prepared
    ref = None
    for impl, job in jobs.items():
        try:
            start, compiled, end = job.result()
            record[f"{impl}_compile_s"] = round(end - start, 3)
            # XLA's own error only beside a Mosaic kernel past half its tolerance (saves time).
            if impl == "mosaic" or impl == "xla" and record.get("max_err_over_tol", 1.0) > 0.5:
                ref = reference(task, record["dtype"], host) if ref is None else ref
                err, norm, tol = errors(task, record["dtype"], compiled(*xs), ref)
                if impl == "mosaic":
                    record.update(max_err_over_tol=err, rel_norm_err=norm, tolerance=tol,
                                  correct=err <= 1.0 and norm <= tol["rel_norm"])
                else:
                    record["xla_max_err_over_tol"] = err
            record[f"{impl}_us"] = round(timed(compiled, xs, iters), 2)
        except Exception as e:  # noqa: BLE001
            record[f"{impl}_error"] = f"{type(e).__name__}: {e}"[:2000]
            traceback.print_exc()
    for impl in ("mosaic", "triton"):
        if f"{impl}_us" in record and "xla_us" in record:
            record[f"{impl}_speedup_vs_xla"] = round(record["xla_us"] / record[f"{impl}_us"], 3)
    return record


def summary(lines) -> str:
    done = [r for r in lines if "started" not in r]
    crashed = {r["key"] for r in lines if "started" in r} - {f"{r['task']}/{r['size']}/{r['dtype']}" for r in done}
    out = []
    for size in sorted({r["size"] for r in done}):
        for dtype in ("float32", "bfloat16", "float16"):
            rows = [r for r in done if r["size"] == size and r["dtype"] == dtype]
            if not rows:
                continue
            out += [f"## {size}, {dtype}", "",
                    "| task | family | Mosaic us | Triton us | XLA us | Mosaic/XLA | Triton/XLA | Mosaic/Triton "
                    "| err/tol (XLA's) | correct |", "|---" * 10 + "|"]
            for r in sorted(rows, key=lambda r: (r["family"], r["task"])):
                def f(key, fmt="{:.2f}"):
                    return fmt.format(r[key]) if key in r else "-"
                ratio = (f"{r['triton_us'] / r['mosaic_us']:.2f}" if "mosaic_us" in r and "triton_us" in r else "-")
                err = f"{f('max_err_over_tol', '{:.3f}')} ({f('xla_max_err_over_tol', '{:.3f}')})"
                status = str(r.get("correct", "error: " + r.get("mosaic_error", "?")[:120]))
                out.append(f"| {r['task']} | {r['family']} | {f('mosaic_us')} | {f('triton_us')} | {f('xla_us')} | "
                           f"{f('mosaic_speedup_vs_xla')} | {f('triton_speedup_vs_xla')} | {ratio} | {err} | {status} |")
            for family in FAMILIES:
                fam = [r for r in rows if r["family"] == family and "mosaic_speedup_vs_xla" in r
                       and "triton_speedup_vs_xla" in r]
                if fam:
                    gm = lambda key: float(np.exp(np.mean([np.log(r[key]) for r in fam])))  # noqa: E731
                    out.append(f"\n{family}: geomean speedup vs XLA, Mosaic {gm('mosaic_speedup_vs_xla'):.3f}, "
                               f"Triton {gm('triton_speedup_vs_xla'):.3f} ({len(fam)} tasks)")
            out.append("")
    if crashed:
        out.append(f"Started and never finished (the process died): {sorted(crashed)}")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--sizes", default="medium")
    ap.add_argument("--dtypes", default="float32,bfloat16")
    ap.add_argument("--tasks", default="")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--deadline", type=float, default=float("inf"))
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--summary-only", action="store_true", help="rebuild summary.md from results.jsonl")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results = out / "results.jsonl"
    if args.summary_only:
        (out / "summary.md").write_text(summary([json.loads(s) for s in results.read_text().splitlines()]))
        return
    lines = [json.loads(s) for s in results.read_text().splitlines()] if args.resume and results.exists() else []
    seen = {r.get("key") or f"{r['task']}/{r['size']}/{r['dtype']}" for r in lines}
    if not args.resume:
        results.write_text("")
        (out / "environment.json").write_text(json.dumps(
            {"jax": jax.__version__, "device": str(jax.devices()[0].device_kind),
             "timer": "jax.experimental.mosaic.gpu.profiler.measure (CUPTI), median of --iters",
             "iters": args.iters}, indent=1))
    # Every task at the first dtype, then the next; families interleaved: a deadline cuts them alike.
    ranked = {t: i for m in FAMILIES.values() for i, t in enumerate(m.KERNELS)}
    tasks = args.tasks.split(",") if args.tasks else sorted(FAMILY_OF, key=lambda t: (ranked[t], FAMILY_OF[t]))
    keys = [(name, size, dtype) for size in args.sizes.split(",") for dtype in args.dtypes.split(",")
            for name in tasks if f"{name}/{size}/{dtype}" not in seen]

    def run(prepared):
        record = prepared[3]
        key = f"{record['task']}/{record['size']}/{record['dtype']}"
        with results.open("a") as fh:  # a process killed by the run leaves this line alone
            fh.write(json.dumps({"key": key, "started": True}) + "\n")
        record = finish(prepared, args.iters)
        print(json.dumps(record), flush=True)
        with results.open("a") as fh:
            fh.write(json.dumps(record) + "\n")

    # One (task, dtype) is compiled on the pool while the one before it runs and is timed.
    with futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 4) as pool:
        previous = None
        for name, size, dtype in keys:
            if time.time() > args.deadline:
                break
            current = prepare(name, size, dtype, pool)
            if previous is not None:
                run(previous)
            previous = current
        if previous is not None:
            run(previous)
    lines = [json.loads(s) for s in results.read_text().splitlines()]
    (out / "summary.md").write_text(summary(lines))


if __name__ == "__main__":
    main()
