"""Two ways to the PTX of a Pallas kernel, compared on the GPU machine (issue 7's overhead).

usage: python3 bench/ptx_paths.py TASK SIZE   -> one JSON line
(a) XLA's dump of the compile (xla_dump_emitter_re=".*", what the harness captures today) and
(b) jaxlib's Triton compilation handler (jax._src.lib.triton.compile, registered by the CUDA
plugin) run on the Triton IR bytecode of the custom call, and
(c) the PTX and cubin inside the serialized executable (compiler_artifacts.executable_binaries).
Reports whether the kernel's .entry text is identical and the time of each path; for (c) also the
registers of the cubin that runs (cuobjdump -res-usage) against ptxas -v on the PTX, and the
compile time with only xla_dump_to (the thunk sequence, no emitter dump).
"""
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
import jax  # noqa: E402
from jax._src.lib import triton  # noqa: E402
from jax._src.lib.mlir import ir  # noqa: E402

from pallasbench import compiler_artifacts, registry  # noqa: E402


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
compiled = jax.jit(lambda *xs: module.kernel(*xs)).lower(*inputs).compile()
t0 = time.perf_counter()
try:
    serialized, serialized_error = compiler_artifacts.executable_binaries(compiled), None
except Exception as exc:
    serialized, serialized_error = {"ptx": None, "cubin": None}, f"{type(exc).__name__}: {exc}"
serialize_s = time.perf_counter() - t0
out = {"task": name, "size": size, "compile_s": plain_s, "compile_with_dump_s": dump_s,
       "compile_with_thin_dump_s": thin_s, "thin_dump_files": sorted(p.name for p in thin_dump.glob("*")),
       "serialize_s": serialize_s, "serialize_error": serialized_error,
       "serialized_ptx_chars": len(serialized["ptx"] or ""), "serialized_cubin_bytes": len(serialized["cubin"] or b"")}
if serialized["cubin"]:
    cubin = thin_dump / "real.cubin"
    cubin.write_bytes(serialized["cubin"])
    usage = subprocess.run(["cuobjdump", "-res-usage", str(cubin)], capture_output=True, text=True)
    out["res_usage"] = usage.stdout[-3000:] + usage.stderr[-500:]
if serialized["ptx"]:
    ptx = thin_dump / "serialized.ptx"
    ptx.write_text(serialized["ptx"])
    report = subprocess.run(["ptxas", "-arch=sm_90a", "-O3", "-v", str(ptx), "-o", str(thin_dump / "re.cubin")],
                            capture_output=True, text=True)
    out["ptxas_registers"] = re.findall(r"Compiling entry function '(\w+)'|Used (\d+) registers", report.stderr)
mods = compiler_artifacts.triton_modules(lowered)
for m in mods:
    kernel = m["name"]
    dumped = compiler_artifacts._module_ptx(dump, [kernel])
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
    c = entry_text(serialized["ptx"] or "", kernel)
    out[kernel] = {"dump_entry_chars": len(a), "handler_entry_chars": len(b), "identical": bool(a) and a == b,
                   "serialized_entry_chars": len(c), "serialized_identical_to_dump": bool(a) and a == c,
                   "handler_s": time.perf_counter() - t0, "handler_smem": smem, "error": error}
print(json.dumps(out))
