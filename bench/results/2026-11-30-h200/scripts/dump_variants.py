"""Which XLA dump options give the PTX of a Pallas kernel, and what each costs in compile time.

usage (GPU machine): python3 bench/results/2026-11-30-h200/scripts/dump_variants.py TASK SIZE
  -> one JSON line per variant
Each variant compiles the same lowered module with its own compiler_options (a fresh dump folder);
"none" compiles without dumping. Compiles are repeated in variant order twice; the second round's
times are the ones to read (the first pays one-off initialisation).
"""
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "python"))
import jax  # noqa: E402

from pallasbench.task import registry  # noqa: E402

name, size = sys.argv[1], sys.argv[2]
module = registry.load(name)
inputs = module.make_inputs(np.random.default_rng(0), module.SHAPES[size])
VARIANTS = {
    "none": {},
    "dump_only": {},
    "llvmir": {"xla_gpu_dump_llvmir": True},
    "llvmir_emitter_triton": {"xla_gpu_dump_llvmir": True, "xla_dump_emitter_re": "triton"},
    "llvmir_emitter_all": {"xla_gpu_dump_llvmir": True, "xla_dump_emitter_re": ".*"},
}
for round_ in (1, 2):
    for variant, options in VARIANTS.items():
        fresh = lambda *xs: module.kernel(*xs)  # noqa: E731 - a new function: no cached compile
        lowered = jax.jit(fresh).lower(*inputs)
        dump = Path(tempfile.mkdtemp())
        if variant != "none":
            options = options | {"xla_dump_to": str(dump)}
        t0 = time.perf_counter()
        lowered.compile(compiler_options=options)
        seconds = time.perf_counter() - t0
        files = sorted(p.name for p in dump.glob("*"))
        ptx = [f for f in files if f.endswith(".ptx")]
        entries = [line.split()[2] for f in ptx for line in (dump / f).read_text().splitlines()
                   if line.startswith(".visible .entry")]
        if round_ == 2:
            print(json.dumps({"task": name, "variant": variant, "compile_s": seconds, "ptx_files": ptx,
                              "entries": entries, "files": len(files),
                              "bytes": sum((dump / f).stat().st_size for f in files)}))
