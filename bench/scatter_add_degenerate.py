#!/usr/bin/env python3
"""scatter_add's degenerate stress case on the GPU, many times: every update row into one id
(docs/tasks.md), checked as the harness checks a stress case (float64 reference; atol 1e-4 scaled by
max(1, rms(ref)), rtol 1e-4), for the shipped kernel and for variants of its "rows" (rows=1
is one atomic a row: the chain the open-sum walk replaces). Fresh OS-entropy seeds each run,
printed. bench/ only.

usage (GPU machine, repository root): python3 bench/scatter_add_degenerate.py [--size large]
    [--trials 8] [--rows default,1,32]
       JAX_PLATFORMS=cpu python3 bench/scatter_add_degenerate.py --cpu-smoke   # SMALL, interpret mode
"""
import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

from pallasbench.task import registry, tuning  # noqa: E402


def check(out, ref):
    """(elements outside the bound, worst |err| / bound) as the harness bounds a stress case."""
    rms = float(np.sqrt(np.mean(ref * ref)))
    bound = 1e-4 * max(1.0, rms) + 1e-4 * np.abs(ref)
    ratio = np.abs(out.astype(np.float64) - ref) / bound
    return int((ratio > 1).sum()), float(ratio.max())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", default="large")
    parser.add_argument("--trials", type=int, default=8)
    parser.add_argument("--rows", default="default,1,32")
    parser.add_argument("--cpu-smoke", action="store_true", help="SMALL in interpret mode on the CPU")
    args = parser.parse_args()
    if args.cpu_smoke:
        from pallasbench.worker import interpret
        interpret.enable_interpret_default()
        args.size = "small"
    task = registry.load("scatter_add")
    n, d = task.SHAPES[args.size]["updates"]
    seeds = np.random.SeedSequence().generate_state(args.trials)
    print(f"scatter_add degenerate, {args.size} ({n} x {d} rows into one id), {jax.devices()[0].device_kind}")
    print("| rows | seed | elements outside the bound | worst error / bound |")
    print("|---|---|---|---|")
    for rows in args.rows.split(","):
        values = {} if rows == "default" else {"rows": int(rows)}
        with tuning.variant("scatter_add", **values):
            fn = jax.jit(task.kernel)
            for seed in seeds:
                rng = np.random.default_rng(int(seed))
                upd = rng.standard_normal((n, d)).astype(np.float32)
                idx = np.full(n, int(rng.integers(0, task.NUM_ROWS)), np.int32)
                out = np.asarray(fn(jnp.asarray(upd), jnp.asarray(idx)))
                ref = np.zeros((task.NUM_ROWS, d))
                ref[idx[0]] = upd.astype(np.float64).sum(0)
                missed, worst = check(out, ref)
                print(f"| {rows} | {seed} | {missed} | {worst:.2f} |", flush=True)


if __name__ == "__main__":
    main()
