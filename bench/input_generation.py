"""What the reference process spends making a task's inputs, by phase, and over the requests of
one evaluation (docs/measurement.md, "Inputs").

Per task: the phases of one `reference` request timed apart (make_inputs, the input-impact
filter's perturbation of each input, the .npy saves to /dev/shm, the reference output), then the
requests one evaluation sends, in its order (src/orchestrate/evaluator_checks.cpp,
evaluator_timing.cpp: each check seed, each input perturbed on seed 0's inputs, the timing set;
stress cases have inputs of their own and are left out), through the reference role's own
`cmd_reference`, each request's wall time.

    .venv/bin/python bench/input_generation.py [--tasks relu add] [--size large] [--seeds 3]
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
os.environ.setdefault("JAX_PLATFORMS", "cpu")

from pallasbench import task as tl  # noqa: E402
from pallasbench.task import registry  # noqa: E402
from pallasbench.worker import interpret, reference as reference_role, tensors  # noqa: E402
from pallasbench.worker.protocol import ReferenceRequest  # noqa: E402


CPU = {}  # the process's CPU seconds (all threads) of the last clock() call


def clock(fn):
    """fn's result and wall seconds; its CPU seconds go to CPU["s"] (on a shared machine the wall
    clock also counts the other users' load, the CPU time does not)."""
    c0, t0 = time.process_time(), time.perf_counter()
    out = fn()
    CPU["s"] = time.process_time() - c0
    return out, time.perf_counter() - t0


def timed(fn):
    out, wall = clock(fn)
    return out, (wall, CPU["s"])


def show(t) -> str:
    return f"{t[0]:.2f} ({t[1]:.2f} cpu)"


def phases(name: str, size: str, scratch: Path) -> dict:
    module = registry.load(name)
    shapes = module.SHAPES[size]
    inputs, make_s = timed(lambda: module.make_inputs(np.random.default_rng(1), shapes))
    perturb_s = []
    for i, spec in enumerate(module.INPUTS):
        _, s = timed(lambda: tl.perturb(np.random.default_rng([1, 7919, i]), inputs[i], spec.domain))
        perturb_s.append(s)
    _, save_s = timed(lambda: [tensors.save(str(scratch / f"in_{s.name}.npy"), x) for s, x in zip(module.INPUTS, inputs)])
    ref = reference_role.Reference()
    ref._run_reference(module, list(inputs))  # compile once: the run's first seed pays it, not each seed
    _, compute_s = timed(lambda: ref._run_reference(module, list(inputs)))
    nbytes = sum(x.nbytes for x in inputs)
    return {"bytes": nbytes, "make_inputs_s": make_s, "perturb_s": perturb_s, "save_s": save_s,
            "reference_s": compute_s}


def evaluation(name: str, size: str, seeds: int, scratch: Path) -> list[tuple[str, float]]:
    """The reference requests of one evaluation, in the evaluator's order, each timed."""
    module = registry.load(name)
    ref = reference_role.Reference()
    requests = [(f"seed{i}", {"seed": 100 + i}) for i in range(seeds)]
    requests += [(f"perturb{i}", {"seed": 100, "perturb": i}) for i in range(len(module.INPUTS))]
    requests += [("timing", {"seed": 999})]
    times = []
    for label, fields in requests:
        out = scratch / label
        out.mkdir()
        req = ReferenceRequest.from_json({"cmd": "reference", "task": name, "size": size, "dir": str(out), **fields})
        _, s = timed(lambda: ref.cmd_reference(req))
        times.append((label, s))
        shutil.rmtree(out)  # the evaluator keeps one seed's files at a time
    return times


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", nargs="+", default=["relu", "add"])
    parser.add_argument("--size", default="large")
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    interpret.enable_interpret_default()
    print(f"# {os.cpu_count()} CPUs, numpy {np.__version__}, size {args.size}, load average {os.getloadavg()[0]:.1f}")
    for name in args.tasks:
        with tempfile.TemporaryDirectory(dir="/dev/shm", prefix="pb-inputs-") as d:
            p = phases(name, args.size, Path(d))
        print(f"{name}: {p['bytes'] / 2**30:.2f} GiB of inputs; seconds wall (cpu): make_inputs {show(p['make_inputs_s'])}, "
              f"perturb {' + '.join(show(s) for s in p['perturb_s'])}, save {show(p['save_s'])}, "
              f"reference {show(p['reference_s'])}")
        with tempfile.TemporaryDirectory(dir="/dev/shm", prefix="pb-inputs-") as d:
            times = evaluation(name, args.size, args.seeds, Path(d))
        print(f"{name}: one evaluation's requests, seconds wall (cpu): "
              + ", ".join(f"{label} {show(s)}" for label, s in times)
              + f"; total {show((sum(s[0] for _, s in times), sum(s[1] for _, s in times)))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
