"""What a GPU executable's serialized form holds, for ptx_paths.py's path (c).

usage (GPU machine): python3 bench/results/2026-11-30-h200/scripts/serialized_probe.py TASK SIZE OUT_FILE
  -> one JSON line
Writes the serialized executable of the task's kernel to OUT_FILE and reports its size, where the
bytes of an ELF header, PTX directives, the kernel's name and zstd frames occur in it. On jax
0.11.2 (H200, relu MEDIUM: 5915 bytes): no PTX, no kernel name in clear, one ELF magic at 3449
whose header is garbled, with cubin strings (sm_90a, .note.nv.tkinfo) among LZ-style literal
fragments: the cubin is there, compressed in a format not identified here.
"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[4] / "python"))
import jax  # noqa: E402

from pallasbench.task import registry  # noqa: E402

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


print(json.dumps({"task": name, "size": size, "bytes": len(blob), "elf_at": offsets(b"\x7fELF"),
                  "version_at": offsets(b".version "), "entry_at": offsets(b".entry "),
                  "kernel_name_at": offsets(b"_relu_body"), "zstd_frames_at": offsets(b"\x28\xb5\x2f\xfd")}))
