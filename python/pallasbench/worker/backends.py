"""Which Pallas backend lowers each kernel of a traced candidate, and why; and what a failure to
lower teaches: the backend and the reason JAX chose it, the candidate's line the error points
at, and the usual fixes (the tracer's `lowering` details of a compile_error, docs/record_schema.md).

The CPU machines run jax 0.10, the GPU machine 0.11 (docs/jax_versions.md). The tracer lowers as
0.11 does on both: a `pl.pallas_call` with Triton (`lower_as_gpu_machine`), refusing a
`pl.pallas_call` that asks for Mosaic GPU (`refuse_mosaic_pallas_call`); Mosaic GPU kernels are
`plgpu.kernel`s. Everything here runs in the untrusted tracer: it only words a refusal.
"""

from __future__ import annotations

import linecache
import traceback
from pathlib import Path

TRITON, MOSAIC_GPU = "triton", "mosaic_gpu"
LABELS = {TRITON: "Triton", MOSAIC_GPU: "Mosaic GPU"}
KERNEL_PRIMITIVES = ("pallas_call", "mpmd_map", "core_map")
GUIDE = "docs/writing_candidates.md"
NO_TRITON_DEFAULT = ("pl.pallas_call without compiler_params: Triton, the default of the GPU machine's jax "
                     "(0.11; jax 0.10 would pick Mosaic GPU, and the CPU tracer lowers as 0.11 does)")


def lower_as_gpu_machine() -> None:
    """jax 0.10 lowers a pallas_call without compiler params with Mosaic GPU (the option
    jax_pallas_use_mosaic_gpu defaults to True); 0.11 has no such option and lowers it with
    Triton, and lowers every plgpu.kernel (mpmd_map) for CUDA with Mosaic GPU whatever its
    compiler params. Set so in the tracer's process before any candidate is imported: the option
    off, and (0.10) plgpu.kernel's CUDA lowering run with it on, or a plgpu.kernel without
    plgpu.CompilerParams would reach Triton ("mesh is not supported in the Triton backend"); a
    plgpu.kernel without compiler params lowers in 0.11's default semantics, Warpgroup (0.10's is
    Lane). Params given without lowering_semantics keep 0.10's Lane: a dataclass cannot tell a
    default from a choice (docs/jax_versions.md: set it explicitly)."""
    import jax

    try:
        jax.config.update("jax_pallas_use_mosaic_gpu", False)
    except AttributeError:  # jax 0.11+: the option is gone, Triton is pallas_call's only path
        return
    from jax._src import config
    from jax._src.interpreters import mlir
    from jax._src.pallas import mpmd

    common = mlir._lowerings[mpmd.mpmd_map_p].rule

    def mosaic_gpu_kernel(ctx, *args, compiler_params=None, **params):
        if compiler_params is None:  # imported by now: a plgpu.kernel is being lowered
            from jax.experimental.pallas import mosaic_gpu as plgpu

            compiler_params = plgpu.CompilerParams(lowering_semantics=plgpu.LoweringSemantics.Warpgroup)
        with config.jax_pallas_use_mosaic_gpu(True):
            return common(ctx, *args, compiler_params=compiler_params, **params)

    mlir.register_lowering(mpmd.mpmd_map_p, mosaic_gpu_kernel, platform="cuda")


def _frames(eqn) -> list[tuple[str, int, str]]:
    """(file, line, function) of where the equation was traced, innermost first."""
    frames = getattr(eqn.source_info.traceback, "frames", None) or []
    return [(f.file_name, f.line_num, f.function_name) for f in frames]


def _kernel_equations(jaxpr, outer: list = ()):
    """(kernel equation, where it was traced): an equation's traceback stops where its enclosing
    trace began (plgpu.kernel's custom_vmap), so the enclosing equations' frames follow its own."""
    from pallasbench.worker.jaxpr_info import _sub_jaxprs

    for eqn in jaxpr.eqns:
        frames = _frames(eqn) + list(outer)
        if eqn.primitive.name in KERNEL_PRIMITIVES:
            yield eqn, frames
            continue
        for value in eqn.params.values():
            for sub in _sub_jaxprs(value):
                yield from _kernel_equations(sub, frames)


def _semantics(params) -> str:
    if params is None:
        return "lowering semantics: Warpgroup, the default of the GPU machine's jax (0.11)"
    semantics = getattr(params, "lowering_semantics", None)
    return f"lowering semantics: {getattr(semantics, 'name', semantics)}"


def kernel_backend(eqn) -> tuple[str, str]:
    """(backend, why JAX lowers this kernel equation with it)."""
    params = eqn.params.get("compiler_params")
    module = type(params).__module__ if params is not None else ""
    if eqn.primitive.name == "pallas_call":
        if params is None:
            return TRITON, NO_TRITON_DEFAULT
        if "mosaic_gpu" in module:
            return MOSAIC_GPU, "pl.pallas_call with compiler_params=plgpu.CompilerParams(...)"
        if "triton" in module:
            return TRITON, "pl.pallas_call with compiler_params=pltriton.CompilerParams(...)"
        return type(params).__name__, f"pl.pallas_call with compiler_params={type(params).__name__}(...)"
    meshes = eqn.params.get("meshes") or (eqn.params.get("mesh"),)
    if any("mosaic_gpu" in type(m).__module__ for m in meshes):
        return MOSAIC_GPU, f"plgpu.kernel, Mosaic GPU's entry point ({_semantics(params)})"
    return "unknown", f"{eqn.primitive.name} over {', '.join(type(m).__name__ for m in meshes)}"


def kernels(closed_jaxpr) -> list[dict]:
    """Every Pallas kernel of the jaxpr (outside other kernels) with its backend and why."""
    found = []
    for eqn, frames in _kernel_equations(closed_jaxpr.jaxpr):
        backend, why = kernel_backend(eqn)
        name = eqn.params.get("name") or getattr(eqn.params.get("metadata"), "name", None)
        found.append({"primitive": eqn.primitive.name, "name": str(name or ""), "backend": backend, "why": why,
                      "frames": frames, "interpreted": bool(eqn.params.get("interpret"))})
    return found


class Refused(Exception):
    """A lowering the GPU machine's jax refuses: message and lowering details."""

    def __init__(self, message: str, details: dict):
        super().__init__(message)
        self.details = details


def refuse_mosaic_pallas_call(found: list[dict]) -> None:
    """jax 0.11 lowers pl.pallas_call with Triton only: its GPU lowering finds no rule for
    plgpu.CompilerParams (a bare AssertionError, pallas_call.py), where 0.10 lowered it with
    Mosaic GPU. Refused here on both, with the way out."""
    for kernel in found:
        if kernel["primitive"] == "pallas_call" and kernel["backend"] == MOSAIC_GPU:
            raise Refused(
                "pl.pallas_call with plgpu.CompilerParams: the GPU machine's jax (0.11) lowers pl.pallas_call "
                "with Triton only and refuses Mosaic GPU compiler params there; write Mosaic GPU kernels with "
                "plgpu.kernel",
                {"backend": MOSAIC_GPU, "chosen_by": kernel["why"], "candidate_line": "",
                 "fixes": [MOSAIC_FIXES["entry"], TRITON_PIN, f"examples of both: {GUIDE}"]})


def refuse_interpreted_mosaic_kernel(found: list[dict]) -> None:
    """A plgpu.kernel that asks for interpret mode itself (interpret=True or JAX's
    InterpretGPUParams) is interpreted on the GPU machine too: its module holds no Mosaic GPU
    kernel (or host callbacks, which do not export). Refused saying so: the harness interprets
    kernels on the CPU itself. (A pallas_call's interpret= is overridden on the CPU, as before.)"""
    for kernel in found:
        if kernel["primitive"] == "mpmd_map" and kernel["interpreted"]:
            raise Refused(
                "plgpu.kernel(..., interpret=...): the kernel asks to be interpreted, on the GPU machine too, where "
                "its module would hold no Mosaic GPU kernel; drop interpret= (on a machine without a GPU the "
                "harness interprets every kernel itself)",
                {"backend": MOSAIC_GPU, "chosen_by": kernel["why"], "candidate_line": "",
                 "fixes": ["remove interpret= from plgpu.kernel", f"what the CPU runs: {GUIDE}"]})


TRITON_PIN = ("write it for Triton: pl.pallas_call(..., compiler_params=pltriton.CompilerParams(num_warps=4)) "
              "(from jax.experimental.pallas import triton as pltriton) or with no compiler_params")
MOSAIC_FIXES = {
    "entry": "write the kernel with plgpu.kernel(body, out_type=..., grid=..., grid_names=...) "
             "(from jax.experimental.pallas import mosaic_gpu as plgpu), its copies through plgpu.emit_pipeline",
    "smem": "Mosaic GPU gives a block 227 KiB of shared memory (232448 bytes, less barriers), and emit_pipeline "
            "keeps max_concurrent_steps (default 1) buffers of every input and output block: use smaller blocks, "
            "or fewer concurrent steps",
    "copy": "Mosaic GPU's TMA copies move at most 256 elements along each dimension: make every block "
            "dimension of plgpu.BlockSpec (and every copy_gmem_to_smem slice) 256 or less",
    "axes": "Mosaic GPU's Lane semantics has no reductions along an axis: use "
            "plgpu.CompilerParams(lowering_semantics=plgpu.LoweringSemantics.Warpgroup) and give layouts",
    "layout": "give Mosaic GPU its layouts: blocks in shared memory with plgpu.TilingTransform((8, 128 // itemsize)) "
              "and plgpu.SwizzleTransform(128), values read as plgpu.layout_cast(ref[...], plgpu.Layout.WGMMA); "
              "a row reduction comes back to the tile's layout through lax.broadcast_in_dim(r, shape, [0]) "
              "and layout_cast to plgpu.Layout.WGMMA",
}
TRITON_FIXES = {
    "pow2": "Triton needs every array inside the kernel to have a power-of-two number of elements: "
            "pad the block to a power of two and mask the edges",
    "max": "Triton blocks hold at most 2^20 = 1,048,576 elements: use smaller blocks",
}


def _fixes(backend: str | None, message: str) -> list[str]:
    fixes = []
    if backend == MOSAIC_GPU:
        for key, needle in (("smem", "exceeds available shared memory"), ("copy", "<=256 elements"),
                            ("axes", "No support for axes yet"), ("layout", "Layout inference failed"),
                            ("layout", "Failed to infer a possible set of layouts"),
                            ("layout", "transfer pattern that avoids bank conflicts")):
            if needle in message and MOSAIC_FIXES[key] not in fixes:
                fixes.append(MOSAIC_FIXES[key])
        fixes.append(TRITON_PIN + ", where the kernel fits Triton's rules")
    elif backend == TRITON:
        for key, needle in (("pow2", "power of 2"), ("max", "Maximum allowed number of elements")):
            if needle in message:
                fixes.append(TRITON_FIXES[key])
        fixes.append(MOSAIC_FIXES["entry"] + ", if the kernel suits Mosaic GPU")
    fixes.append(f"each backend's rules and a kernel that passes: {GUIDE}")
    return fixes


def exception_chain(exc: BaseException) -> list[BaseException]:
    """exc and what caused it, in order, each once (a candidate's exceptions may loop)."""
    seen = []
    while exc is not None and exc not in seen:
        seen.append(exc)
        exc = exc.__cause__ or exc.__context__
    return seen


def failing_backend(exc: BaseException, found: list[dict], candidate: Path | None) -> str | None:
    """The backend whose code raised: from the traceback's frames past the candidate's own (an
    error the candidate's code raises itself is no backend's), else the one backend of the
    kernels traced when JAX's frames name none."""
    named = False
    for e in exception_chain(exc):
        frames = traceback.extract_tb(e.__traceback__)
        mine = [i for i, f in enumerate(frames) if candidate is not None and Path(f.filename) == candidate]
        if mine and mine[-1] == len(frames) - 1:
            return None
        for frame in frames[mine[-1] + 1 if mine else 0:]:
            path = frame.filename.replace("\\", "/")
            named = named or "/jax/" in path
            if "/pallas/mosaic_gpu/" in path or "/mosaic/gpu/" in path:
                return MOSAIC_GPU
            if "/pallas/triton/" in path:
                return TRITON
    backends = {k["backend"] for k in found}
    return backends.pop() if len(backends) == 1 and named else None


def candidate_line(exc: BaseException, candidate: Path, name: str, found: list[dict] = ()) -> str:
    """'name:line in function: source' of the deepest frame in the candidate's file: from the
    stack JAX kept of the operation that failed (JaxStackTraceBeforeTransformation) first, else
    from the exception's, else the call of the first kernel traced (a kernel-wide failure, such
    as its shared memory, points at no operation)."""
    chain = exception_chain(exc)
    chain.sort(key=lambda e: type(e).__name__ != "JaxStackTraceBeforeTransformation")
    stacks = [[(f.filename, f.lineno, f.name, f.line) for f in traceback.extract_tb(e.__traceback__)] for e in chain]
    # Kernel frames come innermost first.
    stacks += [[(*frame, None) for frame in reversed(k["frames"])] for k in found]
    for stack in stacks:
        mine = [f for f in stack if Path(f[0]) == candidate]
        if mine:
            _, lineno, function, line = mine[-1]
            source = (line or linecache.getline(str(candidate), lineno)).strip()
            return f"{name}:{lineno} in {function}: {source}"
    return ""


def explain(exc: BaseException, found: list[dict], candidate: Path | None, name: str) -> tuple[str, dict | None]:
    """(message, lowering details) of a failure to trace or lower the candidate. The message is
    the error's own, whole; details are None when no Pallas backend was involved."""
    what = f"{type(exc).__name__}: {exc}"
    backend = failing_backend(exc, found, candidate)
    line = candidate_line(exc, candidate, name, found) if candidate is not None else ""
    if backend is None:
        return f"tracing or exporting 'kernel' failed: {what}", ({"backend": "", "chosen_by": "", "candidate_line": line,
                                                                  "fixes": []} if line else None)
    chosen = [k["why"] for k in found if k["backend"] == backend] or ["(the kernel did not trace; see the traceback)"]
    details = {"backend": backend, "chosen_by": "; ".join(dict.fromkeys(chosen)), "candidate_line": line,
               "fixes": _fixes(backend, str(exc))}
    return f"{LABELS.get(backend, backend)} lowering failed: {what}", details
