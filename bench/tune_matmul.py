#!/usr/bin/env python3
"""Time the tiled_matmul design choices of the matmul-class tasks against XLA, on the GPU.

For each task built on pallasbench.kernels.tiled_matmul, at LARGE then MEDIUM (shapes from the
task files, inputs from their make_inputs, seed 0), each configuration's whole kernel (packing
pass included) is compiled and timed, and so is the task's XLA reference at default matmul
precision (TF32, as the harness times it). Timing: after a warm-up, batches of back-to-back calls
(sized to ~50 ms) ended by one block_until_ready, median per call over several batches: the host
dispatch of one call overlaps the device work of the previous ones, so the figure is device time
for anything above a few tens of microseconds. Errors are against the task's reference at
HIGHEST matmul precision (float32), on the device: max |out-ref|, ||out-ref||/||ref|| and whether
the task's tolerance holds (2e-3 relative norm, |d| <= 1e-2 + 1e-2 |ref|).

Configurations:
  old          the previous design (raw (K, N) weights read N-major, every operand rounded to TF32
               in registers before the dot, two accumulators for swiglu/geglu), copied below
  new          the current tiled_matmul: packing pass (weights K-major), one dot per K step,
               the default tile plan, no explicit TF32 rounding
  new_round    new with explicit rounding to nearest TF32 everywhere (x tiles in the kernel,
               packed weights, outputs): its errors equal new's where the lowering rounds dot
               operands itself (Triton on the H200), and are lower where it truncates
  tBMxWkBKwWsS tile plan override: BM rows, W dot columns (all weights together), BK, warps,
               stages (only for --tile-tasks)

Usage (repository root, on the GPU machine):
  python3 bench/tune_matmul.py                      # all tasks, large then medium (< 4 min)
  python3 bench/tune_matmul.py --sizes large --tasks swiglu,mlp_block --configs old,new
  OUT=/some/dir python3 bench/tune_matmul.py        # also writes $OUT/tune_matmul.txt
  JAX_PLATFORMS=cpu python3 bench/tune_matmul.py --cpu-smoke   # SMALL, interpret mode, no GPU
A time budget (--budget-s, default 200 s of wall clock) skips whatever is left once spent.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import math
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

TASKS = ["matmul_relu", "matmul_gelu", "matmul_silu", "fused_relu_matmul", "fused_matmul_bias",
         "linear_bias_relu", "swiglu", "geglu", "gated_mlp", "mlp_block"]
TILE_TASKS = ["matmul_relu", "linear_bias_relu", "swiglu", "mlp_block"]
BASE_CONFIGS = ["old", "new", "new_round"]
# (bm, dot width, bk, warps, stages)
# (H200 runs: 128x128k32w4s3, the default plan at LARGE, was best there; 128x128 at 8 warps was
# 37% slower and is left out)
TILES = [(128, 128, 32, 4, 4), (256, 128, 32, 8, 3), (128, 256, 32, 8, 3), (128, 64, 32, 4, 3),
         (64, 128, 32, 4, 3), (64, 64, 32, 4, 3)]


def tile_name(t) -> str:
    return "t{}x{}k{}w{}s{}".format(*t)


# ---------------------------------------------------------------------------------------------
# The previous design, verbatim but for names: for the "old" rows
# ---------------------------------------------------------------------------------------------

def legacy_fused_matmul(x, weights, epilogue, *, bias=None, prologue=None, name="fused_matmul",
                        **_ignored):
    import jax
    import jax.numpy as jnp
    from jax import lax
    from jax.experimental import pallas as pl

    from pallasbench import task as tl

    from pallasbench.kernels import masked
    from pallasbench.kernels import tiled_matmul as mm

    tile, tile_ids = tl.dividing_tile, mm.tile_ids  # the same code the old design had inline

    (m, k), n = x.shape, weights[0].shape[1]
    n_acc = len(weights)
    bk = tile(k, 32)
    bm, bn = tile(m, 128), tile(n, 128 // n_acc)
    while tl.cdiv(m, bm) * tl.cdiv(n, bn) < 132 and max(bm, bn) > 32:
        if bn >= bm:
            bn //= 2
        else:
            bm //= 2
    big = bm * bn * n_acc >= 128 * 128
    xp = masked.pad_to_multiple(masked.pad_to_multiple(x, 0, bm), 1, bk)
    wps = [masked.pad_to_multiple(masked.pad_to_multiple(w, 0, bk), 1, bn) for w in weights]
    (mp, kp), np_ = xp.shape, wps[0].shape[1]
    grid = (mp // bm, np_ // bn)
    prologue = prologue or (lambda t: t)

    def body(x_ref, *refs):
        w_refs, o_ref = refs[:n_acc], refs[-1]
        pid_m, pid_n = tile_ids(pl.program_id(0), *grid)
        rows = pl.ds(pl.multiple_of(pid_m * bm, bm), bm)
        cols = pl.ds(pl.multiple_of(pid_n * bn, bn), bn)

        def step(kk, accs):
            ks = pl.ds(pl.multiple_of(kk * bk, bk), bk)
            xt = mm.round_tf32(prologue(x_ref[rows, ks]))
            return tuple(acc + jnp.dot(xt, mm.round_tf32(w_ref[ks, cols]),
                                       preferred_element_type=jnp.float32)
                         for acc, w_ref in zip(accs, w_refs))

        accs = lax.fori_loop(0, kp // bk, step,
                             tuple(jnp.zeros((bm, bn), jnp.float32) for _ in w_refs))
        extra = (refs[n_acc][...],) if bias is not None else ()
        o_ref[...] = epilogue(*accs, *extra).astype(o_ref.dtype)

    any_spec = pl.BlockSpec(memory_space=pl.ANY)
    in_specs, operands = [any_spec] * (1 + n_acc), [xp, *wps]
    if bias is not None:
        in_specs.append(pl.BlockSpec((1, bn), lambda p: (0, tile_ids(p, *grid)[1])))
        operands.append(masked.pad_to_multiple(bias.reshape(1, n), 1, bn))
    out = pl.pallas_call(
        body, out_shape=jax.ShapeDtypeStruct((mp, np_), x.dtype), grid=(grid[0] * grid[1],),
        in_specs=in_specs, out_specs=pl.BlockSpec((bm, bn), lambda p: tile_ids(p, *grid)),
        compiler_params=tl.triton_params(num_warps=8 if big else 4, num_stages=3 if big else 4),
        name=name + "_old",
    )(*operands)
    return out if (mp, np_) == (m, n) else out[:m, :n]


@contextlib.contextmanager
def config_context(name: str):
    """Trace-time setting of one configuration."""
    from pallasbench.kernels import tiled_matmul as mm

    if name == "old":
        saved = mm.fused_matmul
        mm.fused_matmul = legacy_fused_matmul
        try:
            yield
        finally:
            mm.fused_matmul = saved
    elif name == "new":
        yield
    elif name == "new_round":
        with mm.overrides(round_x=True, round_w=True, round_out=True):
            yield
    elif name.startswith("t"):
        bm, rest = name[1:].split("x")
        width, rest = rest.split("k")
        bk, rest = rest.split("w")
        warps, stages = rest.split("s")
        with mm.overrides(bm=int(bm), width=int(width), bk=int(bk), num_warps=int(warps),
                          num_stages=int(stages)):
            yield
    else:
        raise ValueError(f"unknown configuration '{name}'")


# ---------------------------------------------------------------------------------------------
# Measurement
# ---------------------------------------------------------------------------------------------

def time_per_call(fn, args, reps: int, target_s: float, min_calls: int) -> float:
    """Median seconds per call over `reps` batches of back-to-back calls, each batch ended by
    one block_until_ready; the batch size is chosen so a batch lasts about target_s."""
    import jax

    jax.block_until_ready(fn(*args))  # warm-up (and any lazy initialisation)
    t0 = time.perf_counter()
    for _ in range(3):
        out = fn(*args)
    jax.block_until_ready(out)
    estimate = (time.perf_counter() - t0) / 3
    calls = max(min_calls, min(200, int(target_s / max(estimate, 1e-6))))
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(calls):
            out = fn(*args)
        jax.block_until_ready(out)
        samples.append((time.perf_counter() - t0) / calls)
    return statistics.median(samples)


def error_stats(out, ref, tol):
    import jax.numpy as jnp

    d = jnp.abs(out.astype(jnp.float32) - ref)
    max_abs = float(jnp.max(d))
    rel = float(jnp.linalg.norm(d) / jnp.maximum(jnp.linalg.norm(ref), 1e-30))
    finite = bool(jnp.all(jnp.isfinite(out)))
    elem_ok = bool(jnp.all(d <= tol.atol + tol.rtol * jnp.abs(ref)))
    ok = finite and elem_ok and rel <= tol.rel_norm
    return max_abs, rel, ok


def fmt_us(s: float | None) -> str:
    if s is None:
        return "-"
    us = s * 1e6
    return f"{us:.1f}" if us < 1e4 else f"{us:.0f}"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tasks", default=",".join(TASKS))
    p.add_argument("--sizes", default="large,medium")
    p.add_argument("--configs", default="", help="comma list; default: base configs for every "
                   "task plus the tile variants for --tile-tasks")
    p.add_argument("--tile-tasks", default=",".join(TILE_TASKS))
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--batch-ms", type=float, default=50.0)
    p.add_argument("--budget-s", type=float, default=200.0)
    p.add_argument("--cpu-smoke", action="store_true",
                   help="SMALL shapes in interpret mode on the CPU: checks the script runs")
    args = p.parse_args(argv)

    if args.cpu_smoke:
        os.environ.setdefault("JAX_PLATFORMS", "cpu")
        from pallasbench.worker import interpret
        interpret.enable_interpret_default()
        sizes, reps, batch_s, min_calls = ["small"], 1, 0.0, 1
    else:
        sizes, reps, batch_s, min_calls = args.sizes.split(","), args.reps, args.batch_ms / 1e3, 5

    import jax
    import numpy as np

    from pallasbench.task import registry

    start = time.perf_counter()
    tasks = [t for t in args.tasks.split(",") if t]
    tile_tasks = set(args.tile_tasks.split(","))
    chosen = [c for c in args.configs.split(",") if c]
    print(f"jax {jax.__version__}, backend {jax.default_backend()}, "
          f"device {jax.devices()[0].device_kind}", flush=True)

    # Plan: (size, task, configs) in the order that matters most: base configs for all tasks
    # at each size, then the tile variants; the budget cuts the tail.
    plan = [(size, task, chosen or BASE_CONFIGS) for size in sizes for task in tasks]
    if not chosen:
        plan += [(size, task, [tile_name(t) for t in TILES])
                 for size in sizes for task in tasks if task in tile_tasks]

    header = (f"{'task':18s} {'size':6s} {'config':18s} {'kernel us':>10s} {'xla us':>9s} "
              f"{'ratio':>6s} {'max|err|':>9s} {'rel err':>9s} {'tol':>4s}  note")
    rows = [header]
    print(header, flush=True)
    cache = {}  # (task, size) -> (args, ref, xla seconds)

    def emit(line):
        rows.append(line)
        print(line, flush=True)

    for size, name, configs in plan:
        task = registry.load(name)
        key = (name, size)
        if key not in cache:
            if time.perf_counter() - start > args.budget_s:
                emit(f"{name:18s} {size:6s} {'*':18s} skipped: time budget spent")
                continue
            cache.clear()  # one task's inputs on the device at a time
            inputs = task.make_inputs(np.random.default_rng(0), task.SHAPES[size])
            dev_args = [jax.device_put(x) for x in inputs]
            with jax.default_matmul_precision("highest"):
                ref_fn = jax.jit(lambda *xs, f=task.reference: f(*xs)).lower(*dev_args).compile()
            ref = jax.block_until_ready(ref_fn(*dev_args))
            xla_fn = jax.jit(lambda *xs, f=task.reference: f(*xs)).lower(*dev_args).compile()
            try:
                xla_s = None if args.cpu_smoke else time_per_call(xla_fn, dev_args, reps,
                                                                  batch_s, min_calls)
            except Exception as exc:  # noqa: BLE001 - report and go on
                xla_s = None
                emit(f"{name:18s} {size:6s} {'xla':18s} error: {type(exc).__name__}: {exc}")
            cache[key] = (dev_args, ref, xla_s)
        dev_args, ref, xla_s = cache[key]
        for config in configs:
            if time.perf_counter() - start > args.budget_s:
                emit(f"{name:18s} {size:6s} {config:18s} skipped: time budget spent")
                continue
            try:
                t0 = time.perf_counter()
                with config_context(config):
                    fresh = lambda *xs, f=task.kernel: f(*xs)  # noqa: E731 - no cached trace
                    compiled = jax.jit(fresh).lower(*dev_args).compile()
                compile_s = time.perf_counter() - t0
                out = jax.block_until_ready(compiled(*dev_args))
                max_abs, rel, ok = error_stats(out, ref, task.TOLERANCE)
                k_s = time_per_call(compiled, dev_args, reps, batch_s, min_calls)
                ratio = f"{xla_s / k_s:.2f}" if xla_s and k_s else "-"
                emit(f"{name:18s} {size:6s} {config:18s} {fmt_us(k_s):>10s} {fmt_us(xla_s):>9s} "
                     f"{ratio:>6s} {max_abs:9.2e} {rel:9.2e} {'ok' if ok else 'FAIL':>4s}  "
                     f"compile {compile_s:.1f}s")
            except Exception as exc:  # noqa: BLE001 - one config's failure must not stop the rest
                msg = f"{type(exc).__name__}: {exc}".replace("\n", " ")[:300]
                emit(f"{name:18s} {size:6s} {config:18s} error: {msg}")

    total = time.perf_counter() - start
    rows.append(f"ratio = xla us / kernel us (> 1: kernel faster); xla at default matmul "
                f"precision; errors vs the HIGHEST-precision reference; total {total:.0f} s")
    print(rows[-1], flush=True)
    out_dir = os.environ.get("OUT")
    if out_dir:
        path = Path(out_dir) / "tune_matmul.txt"
        path.write_text("\n".join(rows) + "\n")
        print(f"table written to {path}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
