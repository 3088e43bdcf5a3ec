#!/usr/bin/env python3
"""Time kernel variants of suite tasks against XLA on the GPU: the search behind issue 19's
shipped configurations. bench/ only; the suite never runs it.

A variant is a set of `pallasbench.task.tuning` values (tiles, warps, stages, splits...) that
the task's kernel reads through `tuning.choice`. Variants live in bench/variants/*.py, each a
`VARIANTS = {task: {variant_name: {key: value}}}`; the shipped kernel ("default", no values) is
always timed first. A variant's values lie over the task's shipped table (its TUNED
configuration for the size and dtype, where it has one): keys a variant leaves out keep the
shipped value. A variant may carry "_dtypes": [...] to run only at those dtypes.

For each dtype, size and task: the inputs from the task's make_inputs (seed 0) rounded to the
dtype, as the harness draws them; then
  - the correctness reference: float32 at highest matmul precision on those inputs;
  - XLA: the reference at the dtype, at default matmul precision for USES_TF32 tasks (highest
    otherwise), as the harness times its baseline;
  - each variant: its output checked against the task's tolerance at the dtype (elementwise
    |d| <= atol + rtol |ref| and ||d||/||ref|| <= rel_norm), then timed.
Times: CUPTI device time per call, the L2 flushed before each sample (the harness's own timer,
pallasbench.worker.device_timer), median of --samples, with each kernel's share. A variant that
fails to compile or run is reported with its error and the rest go on.

Usage (repository root, on the GPU machine):
  python3 bench/probe.py --tasks matmul,flash_attention --sizes medium,large --dtypes float32
  OUT=/some/dir python3 bench/probe.py ...        # also writes $OUT/probe.md and probe.jsonl
  JAX_PLATFORMS=cpu python3 bench/probe.py --cpu-smoke --tasks matmul   # SMALL, interpret mode
  python3 bench/probe.py --tasks matmul --variants mosaic --dtypes float32,bfloat16  # Mosaic only
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Variants compiled at once (the GPU machine has 16 cores).
COMPILE_THREADS = 8
sys.path.insert(0, str(ROOT / "python"))


def load_variants() -> dict[str, dict[str, dict]]:
    from pallasbench.task import tuning

    found: dict[str, dict[str, dict]] = {}
    for path in sorted((ROOT / "bench" / "variants").glob("*.py")):
        for task, variants in tuning.read_variants(path).items():
            if task in found:
                raise ValueError(f"{path}: task '{task}' already has variants in another file")
            found[task] = variants
    return found


def inputs_at(module, size: str, dtype: str):
    import jax
    import jax.numpy as jnp
    import numpy as np

    from pallasbench.task import dtypes

    arrays = module.make_inputs(np.random.default_rng(0), module.SHAPES[size])
    out = []
    for a in arrays:
        a = np.asarray(a)
        if a.dtype == np.float32 and dtype != dtypes.FLOAT32:
            out.append(jax.device_put(jnp.asarray(dtypes.round_to(a, dtype)).astype(dtype)))
        else:
            out.append(jax.device_put(a))
    return out


def check(out, ref, tol: dict) -> dict:
    import numpy as np

    out = np.asarray(np.asarray(out).astype(np.float32), np.float64)
    ref = np.asarray(np.asarray(ref).astype(np.float32), np.float64)
    if out.shape != ref.shape:
        return {"ok": False, "why": f"shape {out.shape} != {ref.shape}"}
    diff = np.abs(out - ref)
    rel = float(np.linalg.norm(out - ref) / max(np.linalg.norm(ref), 1e-30))
    elementwise = bool(np.all(diff <= tol["atol"] + tol["rtol"] * np.abs(ref)))
    finite = bool(np.all(np.isfinite(out)))
    return {"ok": finite and elementwise and rel <= tol["rel_norm"], "rel_norm": rel,
            "max_abs": float(diff.max()) if diff.size else 0.0}


def time_fn(fn, inputs, samples: int, timer) -> dict:
    import jax

    jax.block_until_ready(fn(*inputs))
    if timer is None:  # CPU smoke: wall clock
        t0 = time.perf_counter()
        for _ in range(samples):
            jax.block_until_ready(fn(*inputs))
        return {"median_us": (time.perf_counter() - t0) * 1e6 / samples, "kernels": {}}
    reply = timer.sample(fn, inputs, samples, 20.0)
    timer.last_output = None
    n = len(reply["samples_us"])
    kernels = {name: round(k["total_us"] / n, 2) for name, k in reply["kernels"].items()}
    return {"median_us": statistics.median(reply["samples_us"]), "kernels": kernels}


def probe_task(task: str, variants: dict, size: str, dtype: str, samples: int, timer, emit):
    import jax
    import jax.numpy as jnp

    from pallasbench.task import dtypes, registry, tuning

    module = registry.load(task)
    if size not in module.SHAPES:
        return
    inputs = inputs_at(module, size, dtype)
    tol = dtypes.tolerances(module)[dtype]
    with jax.default_matmul_precision("highest"):
        # float32 on the dtype's values (jnp.issubdtype: numpy calls ml_dtypes' bfloat16 kind "V")
        ref = jax.jit(module.reference)(*[x.astype("float32") if jnp.issubdtype(x.dtype, jnp.floating) else x
                                          for x in inputs])
    precision = "default" if getattr(module, "USES_TF32", False) or dtype != dtypes.FLOAT32 else "highest"

    def xla(*xs):
        with jax.default_matmul_precision(precision):
            return module.reference(*xs)

    base = time_fn(jax.jit(xla), inputs, samples, timer)
    emit({"task": task, "size": size, "dtype": dtype, "variant": "xla", **base})
    rows, lowered = [], []
    for name, values in {"default": {}, **variants}.items():
        only, values = values.get("_dtypes"), tuning.tuning_values(values)
        if only and dtype not in only:
            continue
        row = {"task": task, "size": size, "dtype": dtype, "variant": name, "values": values}
        rows.append(row)
        try:  # tracing reads the tuning values, so it runs inside the variant's block
            with tuning.variant(task, **values):
                # a fresh function: jit caches traces by function, which would reuse the default's
                lowered.append(jax.jit(lambda *xs: module.kernel(*xs)).lower(*inputs))
        except Exception as exc:
            row["error"], row["error_detail"] = _error(exc), _error_detail(exc)
            lowered.append(None)
    # XLA's compile (Triton passes, ptxas) is C++ that releases the GIL: compile side by side.
    with concurrent.futures.ThreadPoolExecutor(COMPILE_THREADS) as pool:
        compiled = list(pool.map(lambda low: _compile(low), lowered))
    for row, fn in zip(rows, compiled):
        if isinstance(fn, Exception):
            row["error"], row["error_detail"] = _error(fn), _error_detail(fn)
        elif fn is not None:
            try:
                row.update(check(fn(*inputs), ref, tol))
                row.update(time_fn(fn, inputs, samples, timer))
                row["speedup"] = base["median_us"] / row["median_us"]
            except Exception as exc:  # one variant's failure must not hide the others
                row["error"], row["error_detail"] = _error(exc), _error_detail(exc)
        emit(row)


def _compile(lowered):
    if lowered is None:
        return None
    try:
        return lowered.compile()
    except Exception as exc:
        return exc


def _error(exc) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0][:160] if text else ''}"


def _error_detail(exc) -> str:
    """The whole message, tail-first: a compiler's reason is often on the last lines."""
    text = str(exc).strip()
    return text if len(text) <= 4000 else text[:1000] + "\n...\n" + text[-3000:]


def markdown(rows: list[dict]) -> str:
    lines = ["| task | size | dtype | variant | us | vs XLA | ok | rel err | kernels (us) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["variant"] == "xla":
            lines.append(f"| {r['task']} | {r['size']} | {r['dtype']} | **XLA** | {r['median_us']:.2f} | | | | "
                         + ", ".join(f"{k[:40]} {v}" for k, v in r["kernels"].items()) + " |")
        elif "error" in r:
            lines.append(f"| {r['task']} | {r['size']} | {r['dtype']} | {r['variant']} | - | - | - | - | {r['error']} |")
        else:
            lines.append(f"| {r['task']} | {r['size']} | {r['dtype']} | {r['variant']} | {r['median_us']:.2f} | "
                         f"{r['speedup']:.2f}x | {'yes' if r['ok'] else 'NO'} | {r['rel_norm']:.1e} | "
                         + ", ".join(f"{k[:40]} {v}" for k, v in r["kernels"].items()) + " |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default="", help="comma list (default: every task with variants)")
    parser.add_argument("--sizes", default="medium,large")
    parser.add_argument("--dtypes", default="float32")
    parser.add_argument("--samples", type=int, default=50)
    parser.add_argument("--budget-s", type=float, default=500.0, help="skip what is left after this")
    parser.add_argument("--cpu-smoke", action="store_true", help="SMALL, interpret mode, wall clock, 2 calls")
    parser.add_argument("--variants", default="",
                        help="comma list of name prefixes: only those variants (and the default), "
                             "e.g. --variants mosaic")
    args = parser.parse_args()
    all_variants = load_variants()
    tasks = args.tasks.split(",") if args.tasks else sorted(all_variants)
    prefixes = tuple(p for p in args.variants.split(",") if p)
    timer, sizes, samples = None, args.sizes.split(","), args.samples
    if args.cpu_smoke:
        from pallasbench.worker import interpret

        interpret.enable_interpret_default()
        sizes, samples = ["small"], 2
    else:
        from pallasbench.worker import device_timer

        timer = device_timer.DeviceTimer()
    rows: list[dict] = []
    out_dir = os.environ.get("OUT")
    jsonl = open(Path(out_dir, "probe.jsonl"), "a") if out_dir else None

    def emit(row):
        rows.append(row)
        print(json.dumps(row), flush=True)
        if jsonl:
            jsonl.write(json.dumps(row) + "\n")
            jsonl.flush()

    start = time.perf_counter()
    for dtype in args.dtypes.split(","):
        for size in sizes:
            for task in tasks:
                if time.perf_counter() - start > args.budget_s:
                    print(f"budget spent: skipped {task} {size} {dtype}", flush=True)
                    continue
                try:
                    variants = {name: values for name, values in all_variants.get(task, {}).items()
                                if not prefixes or name.startswith(prefixes)}
                    probe_task(task, variants, size, dtype, samples, timer, emit)
                except Exception as exc:
                    emit({"task": task, "size": size, "dtype": dtype, "variant": "setup",
                          "error": f"{type(exc).__name__}: {str(exc).strip()[:200]}"})
    text = markdown(rows)
    print(text)
    if out_dir:
        Path(out_dir, "probe.md").write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
