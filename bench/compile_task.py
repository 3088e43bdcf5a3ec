"""Compiles and runs one suite task's kernel once; prints lower/compile seconds as JSON.

usage: python3 bench/compile_task.py TASK SIZE   (XLA_FLAGS from the caller decide what is dumped)
Used by bench/capture_compiler_fixtures.sh to capture real compiler output on the GPU machine and
to measure what dumping adds to compile time.
"""
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
import jax  # noqa: E402

from pallasbench.task import registry  # noqa: E402

name, size = sys.argv[1], sys.argv[2]
module = registry.load(name)
inputs = module.make_inputs(np.random.default_rng(0), module.SHAPES[size])
t0 = time.perf_counter()
lowered = jax.jit(module.kernel).lower(*inputs)
t1 = time.perf_counter()
compiled = lowered.compile()
t2 = time.perf_counter()
jax.block_until_ready(compiled(*inputs))
print(json.dumps({"task": name, "size": size, "lower_s": t1 - t0, "compile_s": t2 - t1}))
