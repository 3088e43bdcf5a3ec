"""Ways to the PTX of a Pallas kernel and what each costs the compile, on the GPU machine
(issue 7's overhead).

usage: python3 bench/results/2026-11-30-h200/scripts/ptx_paths.py TASK SIZE   -> one JSON line
Compile times (second of two rounds) plain, with the capture's dump options
(xla_dump_emitter_re=".*") and with only xla_dump_to (thunk sequence, no PTX); and whether
jaxlib's Triton compilation handler (jax._src.lib.triton.compile) gives the same .entry text as the
dump. Call D of 2026-11-30 ran this at commit f776e8d, which also looked for PTX and cubin in the
serialized executable (none in clear; see serialized_probe.py).
"""
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "python"))
import jax  # noqa: E402
from jax._src.lib import triton  # noqa: E402
from jax._src.lib.mlir import ir  # noqa: E402

from pallasbench.task import registry  # noqa: E402
from pallasbench.worker import compiler_artifacts  # noqa: E402


def entry_text(ptx: str, name: str) -> str:
    start = ptx.find(f".entry {name}(")
    if start < 0:
        return ""
    end = ptx.find("\n}\n", start)
    return ptx[start:end]


name, size = sys.argv[1], sys.argv[2]
module = registry.load(name)
inputs = module.make_inputs(np.random.default_rng(0), module.SHAPES[size])
lowered = jax.jit(lambda *xs: module.kernel(*xs)).lower(*inputs)
dump, thin_dump = Path(tempfile.mkdtemp()), Path(tempfile.mkdtemp())
variants = {"plain": {}, "dump": compiler_artifacts.dump_options(dump), "thin_dump": {"xla_dump_to": str(thin_dump)}}
seconds = {}
for round_ in (1, 2):  # the second round's times count (the first pays one-off initialisation)
    for variant, options in variants.items():
        fresh = jax.jit(lambda *xs: module.kernel(*xs)).lower(*inputs)
        t0 = time.perf_counter()
        fresh.compile(compiler_options=options)
        seconds[variant] = time.perf_counter() - t0
plain_s, dump_s, thin_s = seconds["plain"], seconds["dump"], seconds["thin_dump"]
out = {"task": name, "size": size, "compile_s": plain_s, "compile_with_dump_s": dump_s,
       "compile_with_thin_dump_s": thin_s, "thin_dump_files": sorted(p.name for p in thin_dump.glob("*"))}
mods = compiler_artifacts.triton_modules(lowered)
for m in mods:
    kernel = m["name"]
    dumped = compiler_artifacts.kernel_ptx_holders(dump, [kernel]).get(kernel)
    a = entry_text(dumped.read_text(), kernel) if dumped else ""
    found = [ir.StringAttr(config["ir"]).value_bytes for _, config in compiler_artifacts.triton_custom_calls(lowered)
             if ir.StringAttr(config["name"]).value == kernel]
    t0 = time.perf_counter()
    try:
        result = triton.compile("CUDA", found[0], "9.0", num_warps=m["num_warps"], num_ctas=1,
                                num_stages=m["num_stages"])
        b, smem, error = entry_text(result.asm, kernel), result.smem_bytes, None
    except Exception as exc:
        b, smem, error = "", None, f"{type(exc).__name__}: {exc}"
    out[kernel] = {"dump_entry_chars": len(a), "handler_entry_chars": len(b), "identical": bool(a) and a == b,
                   "handler_s": time.perf_counter() - t0, "handler_smem": smem, "error": error}
print(json.dumps(out))
