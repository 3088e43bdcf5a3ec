"""What a GPU executable's serialized form holds, for bench/ptx_paths.py's path (c).

usage (GPU machine): python3 bench/serialized_probe.py TASK SIZE OUT_FILE -> one JSON line
Writes the serialized executable of the task's kernel to OUT_FILE and reports its size, where the
bytes of an ELF header, a CUDA ELF and PTX directives occur in it, and what
compiler_artifacts.binaries_in finds.
"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
import jax  # noqa: E402

from pallasbench import compiler_artifacts, registry  # noqa: E402

name, size, out = sys.argv[1], sys.argv[2], Path(sys.argv[3])
module = registry.load(name)
inputs = module.make_inputs(np.random.default_rng(0), module.SHAPES[size])
compiled = jax.jit(module.kernel).lower(*inputs).compile()
blob = compiled._executable._unloaded_executable.xla_executable.serialize()
out.write_bytes(blob)


def offsets(needle: bytes, limit: int = 20) -> list[int]:
    found, start = [], 0
    while len(found) < limit and (start := blob.find(needle, start)) >= 0:
        found.append(start)
        start += 1
    return found


found = compiler_artifacts.binaries_in(blob)
print(json.dumps({"task": name, "size": size, "bytes": len(blob), "elf_at": offsets(b"\x7fELF"),
                  "version_at": offsets(b".version "), "entry_at": offsets(b".entry "),
                  "kernel_name_at": offsets(b"_relu_body"), "zstd_frames_at": offsets(b"\x28\xb5\x2f\xfd"),
                  "found_ptx_chars": len(found["ptx"] or ""), "found_cubin_bytes": len(found["cubin"] or b"")}))
