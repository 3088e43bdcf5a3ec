"""What the compiler made of a candidate on the GPU: the Triton IR Pallas hands to XLA, XLA's PTX
of the module, ptxas's resource report and the SASS of the kernel's own entry points, XLA's thunk
sequence (launch grid, threads, shared memory), and on request the Triton pass trail.

The worker compiles the candidate plainly (that compile is the one timed and run) and captures the
rest from a second, background compile of the same module with XLA's dump options (CaptureJob);
the C++ side parses the files into the static summary (src/report/).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

from pallasbench.worker import compile_cache

# Custom calls that carry Pallas kernels (Triton, Mosaic GPU).
TRITON_TARGETS = ("__gpu$xla.gpu.triton", "triton_kernel_call_ffi")
MOSAIC_TARGETS = ("mosaic_gpu_v2", "mosaic_gpu")
TOOL_TIMEOUT_S = 120


def dump_options(dump_dir: Path) -> dict:
    """XLA debug options for one compile that dump the module's PTX and thunk sequence.

    On jax 0.11.2 (H200, 2026-11-30, bench/results/2026-11-30-h200/scripts/dump_variants.py) the PTX of a Pallas kernel appears
    only with xla_dump_emitter_re=".*": xla_gpu_dump_llvmir alone, or the regex "triton" (which
    dumps the Triton pass trail), give none. So every capture also writes the pass trail; it is
    kept in the record only when asked for.
    """
    options = {"xla_dump_to": str(dump_dir), "xla_gpu_dump_llvmir": True, "xla_dump_emitter_re": ".*"}
    # Diagnostics: extra XLA debug options for the capture compile (JSON), e.g. to compare dumps.
    extra = os.environ.get("PALLASBENCH_XLA_DUMP_OPTIONS")
    return options | (json.loads(extra) if extra else {})


def pallas_custom_calls(operation, with_mosaic: bool = False) -> list[tuple]:
    """(custom call target, backend-config dictionary attribute) of every Triton custom call
    under an MLIR operation (a module), in program order; with_mosaic adds Mosaic GPU calls
    (their dictionary holds the kernel's MLIR module as bytecode)."""
    from jax._src.lib.mlir import ir

    found = []
    for op in _operations(operation):
        if op.name == "stablehlo.custom_call":
            target = ir.StringAttr(op.attributes["call_target_name"]).value
            if target in TRITON_TARGETS or (with_mosaic and target in MOSAIC_TARGETS):
                found.append((target, _backend_config(op.attributes)))
    return found


def _operations(operation) -> list:
    """The operation and every operation nested in it, in program order (pre-order).

    MLIR's walk hands each op over as a bare Operation. Iterating a block instead builds an OpView
    per op, which looks the op's dialect up as a Python module: for a Mosaic GPU module's generic
    "stable_mosaic_gpu.*" ops no such module exists, the failed import is not cached, and a
    kernel's few thousand ops cost ~0.7 s (32 of the 88 s a SMALL suite run took on the CPU)."""
    from jax._src.lib.mlir import ir

    op = operation.operation if hasattr(operation, "operation") else operation
    found = []

    def visit(inner):
        found.append(inner)
        return ir.WalkResult.ADVANCE

    op.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def _backend_config(attrs):
    """The custom call's dictionary: api_version 4 keeps it in mhlo.backend_config (backend_config
    is then ""); None where neither holds a dictionary."""
    from jax._src.lib.mlir import ir

    for key in ("mhlo.backend_config", "backend_config"):
        if key in attrs:
            try:
                return ir.DictAttr(attrs[key])
            except (TypeError, ValueError):  # backend_config "" beside the dictionary
                continue
    return None


def triton_custom_calls(lowered) -> list[tuple]:
    """pallas_custom_calls of a lowered module."""
    return pallas_custom_calls(lowered.compiler_ir("stablehlo").operation)


def triton_modules(lowered) -> list[dict]:
    """The Triton modules of every Pallas custom call in the lowered module, as MLIR text."""
    return [_decode(target, config) for target, config in triton_custom_calls(lowered)]


def decode_kernel(target, config) -> dict:
    """_decode (Triton) or _decode_mosaic, with a failure to decode kept as the entry's reason
    instead of raised: the harness's precision policy refuses what it cannot read."""
    if config is None:
        return {"target": target, "name": None, "ir": None, "error": "the custom call carries no configuration"}
    try:
        return _decode_mosaic(target, config) if target in MOSAIC_TARGETS else _decode(target, config)
    except Exception as exc:
        return {"target": target, "name": None, "ir": None, "error": f"{type(exc).__name__}: {exc}"}


def _decode_mosaic(target, config) -> dict:
    """A Mosaic GPU kernel's module as MLIR text, one op per line. It is stored as bytecode in its
    serialized (versioned, "stable_mosaic_gpu.") form: lowered to the LLVM and NVVM dialects, with
    wgmma and other tensor-core instructions as inline PTX whose type suffixes (.tf32, .bf16)
    are what the precision policy reads."""
    from jax._src.interpreters import mlir
    from jax._src.lib.mlir import ir
    from jax.experimental.mosaic import gpu as mosaic_gpu

    if "module" not in config:
        return {"target": target, "name": None, "ir": None, "error": "the custom call carries no Mosaic GPU module"}
    module_bytes = ir.StringAttr(config["module"]).value_bytes
    # jax names the module by its SHA-256 (kernel_hash), and the custom call may key compiled
    # kernels by that name: a name that is not this module's could run other code than the IR read.
    named = ir.StringAttr(config["kernel_hash"]).value_bytes if "kernel_hash" in config else None
    if named is not None and named != hashlib.sha256(module_bytes).digest():
        return {"target": target, "name": None, "ir": None, "error": "kernel_hash is not the SHA-256 of the module"}
    ctx = mlir.make_ir_context()
    mosaic_gpu.dialect.register_dialect(ctx)  # its types (barriers) appear in memrefs
    ctx.allow_unregistered_dialects = True  # the serialized ops are generic "stable_mosaic_gpu.*"
    with ctx:
        module = ir.Module.parse(module_bytes)
        attrs = module.operation.attributes
        name = ir.StringAttr(attrs["sym_name"]).value if "sym_name" in attrs else None
        return {"target": target, "name": name, "ir": module.operation.get_asm(enable_debug_info=False),
                "launches": _mosaic_launches(module.operation)}


def _mosaic_launches(operation) -> list[dict]:
    """The kernels the module launches, for the timing's launch check: each gpu.launch's name
    (MLIR's GPU kernel outlining moves its body into a kernel named after the function holding
    it plus "_kernel": the module `matmul` launches `matmul_mosaic_gpu_kernel`, H200 2026-12-04),
    and its grid and threads per block where they are constants. The geometry lets the check
    match a launch that CUPTI names stale (a module loaded where an unloaded one was: H100,
    2026-12-06, fused_softmax_cross_entropy timed under reduce_sum's kernel name)."""
    from jax._src.lib.mlir import ir

    launches = []
    for func in _operations(operation):
        if not (func.name.endswith("func.func") and "sym_name" in func.attributes):
            continue
        name = ir.StringAttr(func.attributes["sym_name"]).value + "_kernel"
        for op in _operations(func):
            if op.name.endswith("gpu.launch") and name not in (l["name"] for l in launches):
                launches.append({"name": name} | _launch_geometry(op))
    return launches


def _launch_geometry(launch) -> dict:
    """grid_x/y/z and block_threads of a gpu.launch whose sizes are constants, else {}. Its
    operands come in segments: async dependencies, grid x y z, block x y z, cluster x y z
    (optional), dynamic shared memory (optional). A clustered launch is left without one: how
    CUPTI counts its grid is not checked on the GPU yet."""
    from jax._src.lib.mlir import ir

    if "operandSegmentSizes" not in launch.attributes:
        return {}
    segments = list(ir.DenseI32ArrayAttr(launch.attributes["operandSegmentSizes"]))
    if len(segments) < 7 or any(n != 1 for n in segments[1:7]) or any(segments[7:10]):
        return {}
    sizes = []
    for operand in list(launch.operands)[segments[0]:segments[0] + 6]:
        owner = operand.owner
        if not hasattr(owner, "attributes") or "value" not in owner.attributes:
            return {}  # a size computed at run time
        try:
            sizes.append(ir.IntegerAttr(owner.attributes["value"]).value)
        except ValueError:  # a constant that is not an integer
            return {}
    return {"grid_x": sizes[0], "grid_y": sizes[1], "grid_z": sizes[2],
            "block_threads": sizes[3] * sizes[4] * sizes[5]}


def load_mosaic_runtime() -> None:
    """Mosaic GPU's custom call links each kernel's host code against libmosaic_gpu_runtime.so,
    found through MOSAIC_GPU_RUNTIME_LIB_PATH, which jax sets when jax.experimental.mosaic.gpu
    is imported. A process that only deserializes an exported module never imports it, and its
    compile fails ("Failed to lookup host symbol"): this imports it (jax's own module, not the
    candidate's code)."""
    import jax.experimental.mosaic.gpu  # noqa: F401  (sets the environment on import)


def _decode(target, config) -> dict:
    from jax._src.interpreters import mlir
    from jax._src.lib.mlir import ir
    from jax._src.lib.triton import dialect as tt_dialect

    name = ir.StringAttr(config["name"]).value if "name" in config else None
    entry = {"target": target, "name": name, "ir": None}
    if "ir" not in config:
        entry["error"] = "the custom call carries no Triton module"
        return entry
    for key in ("num_warps", "num_stages", "grid_x", "grid_y", "grid_z"):
        if key in config:
            entry[key] = ir.IntegerAttr(config[key]).value
    bytecode = ir.StringAttr(config["ir"]).value_bytes
    ctx = mlir.make_ir_context()
    tt_dialect.register_dialect(ctx)
    with ctx:
        entry["ir"] = str(ir.Module.parse(bytecode))
    return entry


def collect(dump_dir: Path, kernel_names: list[str], out_dir: Path, pass_trail: bool) -> dict:
    """Files of the dump that belong to the kernel, copied into out_dir (paths relative to it)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    found: dict = {"kernel_names": kernel_names, "unavailable": {}}
    holders = kernel_ptx_holders(dump_dir, kernel_names)
    parts = sorted(set(holders.values()))
    if not parts:
        listing = sorted(p.name for p in dump_dir.glob("*"))[:40] if dump_dir.exists() else []
        found["unavailable"]["ptx"] = f"no PTX with an entry {kernel_names} in XLA's dump (files: {listing})"
    else:
        # One file per LLVM module XLA compiled (each pallas_call's kernel can land in its own):
        # the parts are assembled one by one, the record gets them concatenated.
        found["ptx_parts"] = []
        with open(out_dir / "kernel.ptx", "w") as whole:
            for index, part in enumerate(parts):
                shutil.copyfile(part, out_dir / f"kernel.{index}.ptx")
                found["ptx_parts"].append(f"kernel.{index}.ptx")
                whole.write(f"// ---- {part.name}\n" + part.read_text(errors="replace"))
        found["ptx"] = "kernel.ptx"
        missing = [name for name in kernel_names if name not in holders]
        if missing:
            found["unavailable"]["ptx_entries"] = f"no PTX entry for {missing} in XLA's dump"
    thunks = sorted(dump_dir.glob("*thunk_sequence.txt"))
    if thunks:
        shutil.copyfile(thunks[-1], out_dir / "thunk_sequence.txt")
        found["thunk_sequence"] = "thunk_sequence.txt"
    else:
        found["unavailable"]["thunk_sequence"] = "XLA dumped no thunk sequence"
    trails = sorted(dump_dir.glob("*.triton-to-llvm.txt")) if pass_trail else []
    if trails:
        with open(out_dir / "pass_trail.txt", "wb") as dst:
            for trail in trails:
                dst.write(trail.read_bytes())
        found["pass_trail"] = "pass_trail.txt"
    return found


def kernel_ptx_holders(dump_dir: Path, kernel_names: list[str]) -> dict[str, Path]:
    """For each kernel name with an entry in the dump, the PTX file holding it (names without
    one are absent). XLA writes one file per LLVM module it compiles; where a name appears in
    several (an earlier compile of the same module in the dump), the last numbered file is the
    final one. Each file is read once."""
    holders: dict[str, Path] = {}
    for path in sorted(dump_dir.glob("*.ptx"), reverse=True):
        text = path.read_text(errors="replace")
        for name in kernel_names:
            if name not in holders and f".entry {name}(" in text:
                holders[name] = path
    return holders


class CaptureJob:
    """The kernel's PTX, thunk sequence, ptxas report and SASS, captured in a background thread
    from a second compile of the same lowered module with XLA's dump options.

    Why a second compile: on jax 0.11.2 the PTX is dumped only with xla_dump_emitter_re=".*",
    which also writes the Triton pass trail and slowed the compile it rode on by 30-100% (relu
    +35%, matmul +106% at MEDIUM on the H200: bench/results/2026-11-30-h200/ptx_paths.jsonl);
    neither the serialized executable nor jaxlib offer the PTX instead (same file). So the
    compile the record times stays clean, and this one compiles the same module with the same
    options plus the dump (XLA's output is a function of module and options) while the worker
    checks correctness. ptxas and cuobjdump (~0.5 s, process start-up mostly) follow in the same
    thread. The worker collects the result before the kernel is timed, so nothing runs beside
    the timing.
    """

    def __init__(self, lowered, kernel_names: list[str], out_dir: Path, pass_trail: bool):
        self._lowered, self._names, self._out_dir, self._pass_trail = lowered, kernel_names, out_dir, pass_trail
        self._result: dict | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        try:
            self._result = self._capture()
        except Exception as exc:  # evidence missing, never a failed kernel
            self._result = {"kernel_names": self._names,
                            "unavailable": {"ptx": f"artifact capture failed: {type(exc).__name__}: {exc}"}}

    def _capture(self) -> dict:
        dump = self._out_dir / "xla_dump"
        t0 = time.perf_counter()
        try:
            # With --compile-cache the capture must really compile: an executable served from the
            # persistent cache dumps nothing. Its key differs from the plain compile's (JAX hashes
            # the xla_dump_emitter_re / xla_gpu_dump_llvmir overrides; it strips only xla_dump_to
            # and a few others: jax/_src/cache_key.py), and never_written keeps this thread from
            # writing an entry under that key, so no capture ever finds one. watch() checks it.
            with compile_cache.watch() as cache, compile_cache.never_written():
                self._lowered.compile(compiler_options=dump_options(dump))
        except Exception as exc:
            return {"kernel_names": self._names,
                    "unavailable": {"ptx": f"the capture compile failed: {type(exc).__name__}: {exc}"}}
        compile_s = time.perf_counter() - t0
        if cache["hit"]:
            return {"kernel_names": self._names, "capture_compile_s": compile_s,
                    "unavailable": {"ptx": "the capture compile was served from the persistent compilation "
                                           "cache: XLA dumped nothing"}}
        found = collect(dump, self._names, self._out_dir, self._pass_trail)
        shutil.rmtree(dump, ignore_errors=True)
        found["capture_compile_s"] = compile_s
        if "ptx" in found:
            unavailable: dict = {}
            try:
                found |= _sass([self._out_dir / part for part in found["ptx_parts"]], self._out_dir, unavailable)
            except Exception as exc:  # a broken toolkit leaves SASS out, with the reason
                unavailable["sass"] = f"{type(exc).__name__}: {exc}"
            found["unavailable"] |= unavailable
        return found

    def finish(self) -> dict:
        """The captured artifacts (waits for the capture compile and the tools)."""
        self._thread.join()
        return self._result


def _sass(parts: list[Path], out_dir: Path, unavailable: dict) -> dict:
    """ptxas -v (sm_90a, -O3 as XLA compiles) for the resource report, cuobjdump for SASS, per PTX
    part; the reports and listings are concatenated (the C++ parsers keep functions apart)."""
    ptxas, cuobjdump = shutil.which("ptxas") or _toolkit("ptxas"), shutil.which("cuobjdump") or _toolkit("cuobjdump")
    if not ptxas or not cuobjdump:
        unavailable["sass"] = "ptxas/cuobjdump not found (CUDA toolkit not on PATH or in /usr/local/cuda/bin)"
        return {}
    t0 = time.perf_counter()
    reports, listings = [], []
    for ptx in parts:
        cubin = ptx.with_suffix(".cubin")
        report = subprocess.run([ptxas, "-arch=sm_90a", "-O3", "-v", str(ptx), "-o", str(cubin)],
                                capture_output=True, text=True, timeout=TOOL_TIMEOUT_S)
        if report.returncode != 0:
            unavailable["sass"] = f"ptxas failed on {ptx.name} ({report.returncode}): {report.stderr[-2000:]}"
            return {}
        reports.append(report.stderr + report.stdout)
        sass = subprocess.run([cuobjdump, "-sass", str(cubin)], capture_output=True, text=True,
                              timeout=TOOL_TIMEOUT_S)
        cubin.unlink(missing_ok=True)
        if sass.returncode != 0:
            unavailable["sass"] = f"cuobjdump failed on {ptx.name} ({sass.returncode}): {sass.stderr[-2000:]}"
            listings = None
            break
        listings.append(sass.stdout)
    (out_dir / "ptxas.txt").write_text("".join(reports))
    found = {"ptxas": "ptxas.txt", "tools_s": time.perf_counter() - t0}
    if listings is not None:
        (out_dir / "kernel.sass").write_text("".join(listings))
        found["sass"] = "kernel.sass"
    return found


def _toolkit(tool: str) -> str | None:
    path = Path("/usr/local/cuda/bin") / tool
    return str(path) if path.exists() else None
