"""The tracer (untrusted): `python -m pallasbench.worker.tracer`, one process per candidate, thrown away
after one trace.

It imports the candidate, traces `kernel` with jax.jit for the task's input shapes and hands
over data only: the module serialized by `jax.export`, the jaxpr (for the record's DAG) and what
it saw while tracing. The harness starts it sandboxed (src/orchestrate/sandbox.cpp): no network,
a private /tmp and /dev/shm, read-only access to the Python and project folders, no GPU, rlimits,
its own PID namespace, no inherited file descriptors but its pipes.

Nothing it says is trusted: candidate code runs here and may rewrite any of it. The executor
compiles the module it hands over and the harness analyses that module's StableHLO itself; what
the tracer reports about the jaxpr only ever adds reasons to refuse (docs/threat_model.md).

On a GPU machine it exports the CUDA lowering. On a CPU-only machine it exports two: the Pallas
interpret-mode lowering, which the executor runs, and the CUDA lowering (Pallas's real Triton and
Mosaic GPU lowerings run without a GPU), which the harness analyses. That the two match cannot be
verified there. Both lower as the GPU machine's jax (0.11) does, whatever jax runs here
(worker/backends.py): a plain pl.pallas_call with Triton, a pallas_call with Mosaic GPU compiler
params refused; plgpu.kernel runs through Pallas's interpreter with worker/mosaic_interpret.py's
rules, and a kernel those cannot run is refused saying so. A failure to lower says which backend
JAX chose and why, the candidate's line and the usual fixes (the error's `lowering` details).
"""

from __future__ import annotations

import base64
import re
import sys
import time
from pathlib import Path

from pallasbench.task import dtypes, registry
from pallasbench.worker import backends, interpret, jaxpr_info, server
from pallasbench.worker.protocol import Candidate, CommandError, TraceRequest

# Custom calls that carry Pallas kernels (Triton, Mosaic GPU): export refuses them unless told.
PALLAS_TARGETS = ("__gpu$xla.gpu.triton", "triton_kernel_call_ffi", "mosaic_gpu_v2")


def _import_candidate(candidate: Candidate):
    if candidate.task is not None:
        module = registry.load(candidate.task)
        try:
            return registry.implementation(module, candidate.backend), module
        except registry.TaskError as exc:
            raise CommandError("task_error", str(exc)) from exc
    # The harness sends the source it read itself; the file is written into this process's
    # private working folder and imported from there.
    path = Path.cwd() / "candidate.py"
    # In the encoding the file declares (PEP 263), so the bytes imported are the bytes hashed.
    path.write_text(candidate.source, encoding=candidate.encoding, newline="")
    try:
        module = registry.import_file(path, "pallasbench_candidate")
    except SyntaxError as exc:
        raise CommandError("compile_error", f"{candidate.name}: syntax error: {exc}") from exc
    except Exception as exc:
        raise CommandError("compile_error",
                           f"{candidate.name}: import failed: {type(exc).__name__}: {exc}") from exc
    fn = getattr(module, "kernel", None)
    if not callable(fn):
        raise CommandError("compile_error", f"{candidate.name}: defines no callable 'kernel'")
    return fn, module


def _refused_targets(message: str) -> list[str]:
    """Targets that export's "custom calls whose targets have no compatibility guarantees" error
    shows (as `stablehlo.custom_call @target(`), so the module can be handed over and refused
    by the harness's own analysis, which names them."""
    if "no compatibility guarantees" not in message:
        return []
    return sorted(set(re.findall(r"stablehlo\.custom_call @([\w$.]+)\(", message)))


def export(fn, avals, platform: str) -> bytes:
    """The module as jax.export serializes it, in the running jax's own IR versions: the executor,
    of the same jax, compiles it, and the harness reads each Mosaic GPU kernel's module, which
    export's forward-compatible form (an older Mosaic GPU IR version) writes in attribute syntax
    that jax 0.11.2's own MLIR no longer parses (docs/jax_versions.md)."""
    import jax

    targets = list(PALLAS_TARGETS)
    for _ in range(2):
        checks = [jax.export.DisabledSafetyCheck.custom_call(t) for t in targets]
        try:
            with _current_ir_versions():
                exported = jax.export.export(jax.jit(fn), platforms=[platform], disabled_checks=checks)(*avals)
            return exported.serialize()
        except ValueError as exc:
            more = [t for t in _refused_targets(str(exc)) if t not in targets]
            if not more:
                raise
            targets += more
    raise AssertionError("unreachable")


def _current_ir_versions():
    """jax_export_ignore_forward_compatibility for one export (a thread-local setting)."""
    from jax._src import config

    return config.export_ignore_forward_compatibility(True)


def _target(device_kind: str | None):
    """The GPU the module is lowered for. The tracer sees no GPU; on jax 0.11 Pallas's Triton
    lowering asks for the device's compute capability and takes it from an abstract device when
    there is none (docs/jax_versions.md). The device kind comes from the trusted side."""
    import contextlib

    import jax

    if not device_kind or not hasattr(jax.sharding, "AbstractDevice"):
        return contextlib.nullcontext()
    device = jax.sharding.AbstractDevice(device_kind=device_kind, platform="gpu", num_cores=None)
    return jax.sharding.use_abstract_mesh(jax.sharding.AbstractMesh((), (), abstract_device=device))


class Tracer:
    """suite: the tracer of the suite's own task files, which serves every task of a run (the
    suite is one candidate: the project's reviewed code). A user candidate's tracer traces once
    and is killed; refusing a second trace guards the harness against its own mistakes only."""

    ROLE = "tracer"

    def __init__(self, suite: bool = False):
        self._suite, self._used = suite, False

    def cmd_trace(self, req: TraceRequest):
        import jax

        if self._used and not self._suite:
            raise CommandError("usage_error", "a tracer traces one candidate and is thrown away")
        if self._suite and req.candidate.task is None:
            raise CommandError("usage_error", "the suite's tracer traces the suite's tasks only")
        self._used = True
        jax.clear_caches()  # each task traced afresh
        fn, module = _import_candidate(req.candidate)
        avals = [jax.ShapeDtypeStruct(tuple(s.shape), dtypes.numpy_dtype(s.dtype)) for s in req.inputs]
        on_cpu = req.platform == "cpu"
        found: list[dict] = []
        try:
            t0 = time.perf_counter()
            with interpret.forced(False) if on_cpu else interpret.suspended(), _target(req.device_kind):
                closed = jax.make_jaxpr(fn)(*avals)
                _refuse_host_callbacks(closed)
                found = backends.kernels(closed)
                backends.refuse_mosaic_pallas_call(found)
                backends.refuse_interpreted_mosaic_kernel(found)
                analysis = export(fn, avals, "cuda")
            t1 = time.perf_counter()
            executable = None
            if on_cpu:
                jax.clear_caches()  # interpret mode must not meet a trace cached above
                executable = _export_interpreted(fn, avals, found)
            t2 = time.perf_counter()
        except CommandError:
            raise
        except backends.Refused as exc:
            raise CommandError("compile_error", str(exc), exc.details) from exc
        except Exception as exc:
            message, details = backends.explain(exc, found, _candidate_path(req.candidate), req.candidate.name)
            raise CommandError("compile_error", message, details) from exc
        return {
            "module": base64.b64encode(executable or analysis).decode(),
            "analysis_module": base64.b64encode(analysis).decode() if on_cpu else None,
            "jaxpr": str(closed),
            "pallas_calls": jaxpr_info.pallas_calls(closed),
            "jaxpr_dag": jaxpr_info.dag(closed),
            "task_modules_loaded": _task_code_used(req.candidate, closed),
            "trace_s": t1 - t0,
            "interpret_export_s": t2 - t1 if on_cpu else None,
        }


def _candidate_path(candidate: Candidate) -> Path | None:
    return None if candidate.task is not None else Path.cwd() / "candidate.py"


def _export_interpreted(fn, avals, found: list[dict]) -> bytes:
    """The module the executor runs on the CPU: every kernel interpreted. A Mosaic GPU kernel
    the interpreter cannot run is refused naming what it cannot run: its CUDA lowering passed,
    so only a GPU can judge it."""
    from pallasbench.worker import mosaic_interpret

    try:
        with interpret.forced(True):
            return export(fn, avals, "cpu")
    except Exception as exc:
        reason = next((e for e in backends.exception_chain(exc) if isinstance(e, mosaic_interpret.Unsupported)), None)
        if reason is None:
            raise
        chosen = "; ".join(dict.fromkeys(k["why"] for k in found if k["backend"] == backends.MOSAIC_GPU))
        raise CommandError("compile_error", f"not runnable on the CPU: the CPU's Mosaic GPU interpreter cannot run "
                           f"{reason}. The kernel lowered for CUDA; judge it on a GPU (--device gpu)",
                           {"backend": backends.MOSAIC_GPU, "chosen_by": chosen, "candidate_line": "",
                            "fixes": ["evaluate it on a GPU machine: pallasbench eval --device gpu",
                                      f"what the CPU interpreter runs: {backends.GUIDE}"]}) from exc


def _refuse_host_callbacks(closed):
    """A host callback cannot be handed over (jax.export refuses it, with a message about
    platforms): say what it is. The tracer's word only ever refuses."""
    for eqn, _ in jaxpr_info.iter_equations(closed.jaxpr):
        if "callback" in eqn.primitive.name:
            raise CommandError("compile_error", f"host callback '{eqn.primitive.name}' in 'kernel': the harness runs "
                               "only what jax.export can hand over to its executor, and refuses host callbacks")


def _task_code_used(candidate: Candidate, closed) -> list[str]:
    """Task files a user candidate imported or ran while tracing. Only ever a reason to refuse:
    a candidate can hide this, not forge a pass with it."""
    if candidate.task is not None:
        return []
    tasks = registry.tasks_dir().resolve()
    files = {getattr(m, "__file__", None) for m in list(sys.modules.values())}
    files |= jaxpr_info.traced_files(closed)
    used = set()
    for f in files:
        if not isinstance(f, str):
            continue
        try:
            path = Path(f).resolve()
        except (OSError, RuntimeError):
            continue
        if path.is_relative_to(tasks):
            used.add(str(path.relative_to(registry.project_root().resolve())))
    return sorted(used)


def main() -> int:
    channel = server.claim_stdout()
    import jax

    backends.lower_as_gpu_machine()  # before any candidate is imported
    if interpret.on_cpu():
        interpret.enable_interpret_default()
    jax.numpy.zeros(1).block_until_ready()  # backend up before the candidate arrives (warm spare)
    return server.serve(Tracer(suite="--suite" in sys.argv[1:]), channel, {})


if __name__ == "__main__":
    sys.exit(main())
