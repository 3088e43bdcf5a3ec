"""A/B device time of two kernel files for one task, in one process: alternating batches of CUPTI
samples (L2 flushed before each, as the harness samples), on the same inputs.

usage: python3 bench/results/2026-12-01-h200-stress/scripts/kernel_ab.py TASK SIZE FILE_A FILE_B [BATCHES]
(For kernels the harness would not time: one that fails a check stops before its timing.)
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "python"))


def main() -> int:
    import jax

    from pallasbench.task import registry
    from pallasbench.worker import device_timer

    task, size, file_a, file_b = sys.argv[1:5]
    batches = int(sys.argv[5]) if len(sys.argv) > 5 else 20
    module = registry.load(task)
    inputs = [jax.device_put(x) for x in module.make_inputs(np.random.default_rng(0), module.SHAPES[size])]
    fns = {}
    for label, path in (("A", file_a), ("B", file_b)):
        kernel = registry.import_file(Path(path), f"ab_{label}").kernel
        fns[label] = jax.jit(kernel)
        for _ in range(5):
            jax.block_until_ready(fns[label](*inputs))
    timer = device_timer.DeviceTimer()
    samples = {"A": [], "B": []}
    for _ in range(batches):
        for label, fn in fns.items():
            samples[label] += timer.sample(fn, inputs, 100, 5.0)["samples_us"]
            timer.last_output = None
    for label, path in (("A", file_a), ("B", file_b)):
        s = np.asarray(samples[label])
        q1, med, q3 = np.percentile(s, [25, 50, 75])
        print(f"{label} {path}: median {med:.3f} us (q1 {q1:.3f}, q3 {q3:.3f}, {len(s)} samples)")
    a, b = np.median(samples["A"]), np.median(samples["B"])
    print(f"B / A = {b / a:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
