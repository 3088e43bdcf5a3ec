"""Two ways to the PTX of a Pallas kernel, compared on the GPU machine (issue 7's overhead).

usage: python3 bench/ptx_paths.py TASK SIZE   -> one JSON line
(a) XLA's dump of the compile (xla_dump_emitter_re=".*", what the harness captures today) and
(b) jaxlib's Triton compilation handler (jax._src.lib.triton.compile, registered by the CUDA
plugin) run on the Triton IR bytecode of the custom call. Reports whether the kernel's .entry
text is identical, and the time of each path; (b) needs no dump, so it could replace (a) if equal.
"""
import json
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
t0 = time.perf_counter()
lowered.compile()
plain_s = time.perf_counter() - t0
dump = Path(tempfile.mkdtemp())
fresh = jax.jit(lambda *xs: module.kernel(*xs)).lower(*inputs)
t0 = time.perf_counter()
fresh.compile(compiler_options=compiler_artifacts.dump_options(dump))
dump_s = time.perf_counter() - t0
out = {"task": name, "size": size, "compile_s": plain_s, "compile_with_dump_s": dump_s}
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
    out[kernel] = {"dump_entry_chars": len(a), "handler_entry_chars": len(b), "identical": bool(a) and a == b,
                   "handler_s": time.perf_counter() - t0, "handler_smem": smem, "error": error}
print(json.dumps(out))
