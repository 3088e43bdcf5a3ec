"""The executor (trusted): `python -m pallasbench.worker.executor`, long-lived, one per GPU.

It never imports candidate code. It takes the module a tracer serialized with `jax.export`,
deserializes it, hands its StableHLO and its kernels' Triton IR to the harness for analysis, and
only when the harness says so compiles it (the compiler artifacts are captured here), runs it on
the inputs the reference process wrote, and times it with CUPTI. One executor serves every
candidate and task of a run: there is no JAX start per candidate.
"""

from __future__ import annotations

import base64
import sys
import time
from pathlib import Path

from pallasbench.task import dtypes
from pallasbench.worker import compile_cache, compiler_artifacts, environment, interpret, sampling, server, tensors
from pallasbench.worker.protocol import (ArtifactsRequest, CommandError, CompileRequest, LoadRequest, RunRequest,
                                         TimeRequest)


def _deserialize(blob: str, what: str):
    import jax

    try:
        return jax.export.deserialize(bytearray(base64.b64decode(blob, validate=True)))
    except Exception as exc:
        raise CommandError("compile_error", f"the tracer's {what} cannot be deserialized: "
                           f"{type(exc).__name__}: {exc}") from exc


def _check_signature(exported, avals, platform: str):
    """The module must take exactly the task's inputs and run on this backend."""
    got = [(tuple(a.shape), str(a.dtype)) for a in exported.in_avals]
    want = [(tuple(a.shape), str(a.dtype)) for a in avals]
    if got != want:
        raise CommandError("compile_error", f"the module takes {got}, the task's inputs are {want}")
    if len(exported.out_avals) != 1:
        raise CommandError("runtime_error", f"'kernel' returns {len(exported.out_avals)} arrays, expected one")
    if platform not in exported.platforms:
        raise CommandError("compile_error", f"the module was lowered for {list(exported.platforms)}, "
                           f"not for {platform}")


def describe_module(exported) -> tuple[str, list[dict], list[int]]:
    """The module's StableHLO without debug locations (they name the tracer's files and cost the
    analysis a pass), every Pallas custom call's kernel, its Triton IR decoded to text, and per
    argument of @main the task input it is (jax.export drops the inputs the function never uses;
    the call passes the kept ones in order, so this is what the module receives, whoever wrote it)."""
    from jax._src.interpreters import mlir
    from jax._src.lib.mlir import ir

    with mlir.make_ir_context():
        module = ir.Module.parse(exported.mlir_module())
        text = module.operation.get_asm(enable_debug_info=False)
        calls = compiler_artifacts.pallas_custom_calls(module.operation, with_mosaic=True)
        kernels = [compiler_artifacts.decode_kernel(target, config) for target, config in calls]
    if any(target in compiler_artifacts.MOSAIC_TARGETS for target, _ in calls):
        compiler_artifacts.load_mosaic_runtime()  # before the compile, which links its host code
    return text, kernels, [int(i) for i in exported.module_kept_var_idx]


class Executor:
    ROLE = "executor"

    def __init__(self):
        self._exported = None  # the loaded module, until compiled
        self._avals = None
        self._input_dtypes = None
        self.compiled = None
        self._sampler = sampling.Sampler()
        self._device_inputs = tensors.DeviceInputs()
        self._capture_job = None  # (artifacts so far, CaptureJob) of the compiled module

    def _platform(self) -> str:
        return "cpu" if interpret.on_cpu() else "cuda"

    def cmd_load(self, req: LoadRequest):
        """Deserialize a module and describe it for analysis; nothing is compiled yet."""
        import jax

        self._drop()
        avals = [jax.ShapeDtypeStruct(tuple(s.shape), dtypes.numpy_dtype(s.dtype)) for s in req.inputs]
        exported = _deserialize(req.module, "module")
        _check_signature(exported, avals, self._platform())
        text, kernels, main_inputs = describe_module(exported)
        reply = {"stablehlo": text, "platforms": list(exported.platforms), "kernels": kernels,
                 "main_inputs": main_inputs,
                 "output": {"shape": list(exported.out_avals[0].shape), "dtype": str(exported.out_avals[0].dtype)}}
        if req.analysis_module is not None:
            # CPU only: the CUDA lowering the tracer exported beside the interpret one.
            analysed = _deserialize(req.analysis_module, "analysis module")
            _check_signature(analysed, avals, "cuda")
            reply["analysis_stablehlo"], reply["kernels"], reply["main_inputs"] = describe_module(analysed)
        self._exported, self._avals = exported, avals
        self._input_dtypes = [s.dtype for s in req.inputs]  # low-precision inputs travel as float32
        return reply

    def cmd_compile(self, req: CompileRequest):
        """Compile the loaded module (lower and compile timed apart) for running and timing."""
        import jax

        if self._exported is None:
            raise CommandError("usage_error", "compile before load")
        capture = self._capture_wanted(req)
        exported, self._exported = self._exported, None
        try:
            t0 = time.perf_counter()
            lowered = jax.jit(exported.call).lower(*self._avals)
            t1 = time.perf_counter()
            with compile_cache.watch() as cache:  # whether JAX served it from --compile-cache
                compiled = lowered.compile()
            t2 = time.perf_counter()
        except Exception as exc:
            raise CommandError("compile_error", f"compiling the module failed: {type(exc).__name__}: {exc}") from exc
        self.compiled = compiled
        return {"lower_s": t1 - t0, "compile_s": t2 - t1, "cache": cache, "memory": self._memory_analysis(compiled),
                "artifacts": self._artifacts(req.artifacts.mode, capture, lowered)}

    def _drop(self):
        self._exported, self.compiled, self._capture_job = None, None, None
        self._device_inputs.drop()

    @staticmethod
    def _capture_wanted(req: CompileRequest) -> dict | None:
        """Where the compiler artifacts go, when they are wanted on a GPU."""
        wanted = req.artifacts
        if wanted.mode == "none" or interpret.on_cpu():
            return None
        return {"out": Path(wanted.dir), "pass_trail": wanted.pass_trail}

    def _artifacts(self, mode: str, capture, lowered) -> dict:
        if mode == "none":
            return {"mode": mode}
        if capture is None:
            return {"mode": mode, "artifacts_unavailable": "cpu interpret mode"}
        t0 = time.perf_counter()
        unavailable = {}
        try:
            modules = compiler_artifacts.triton_modules(lowered)
        except Exception as exc:  # the IR is evidence, not a reason to fail the kernel
            modules, unavailable["triton_ir"] = [], f"{type(exc).__name__}: {exc}"
        names = [m["name"] for m in modules if m.get("name")]
        job = compiler_artifacts.CaptureJob(lowered, names, capture["out"], capture["pass_trail"])
        base = {"mode": mode, "dir": str(capture["out"]), "triton": modules, "kernel_names": names,
                "unavailable": unavailable, "capture_s": time.perf_counter() - t0}
        self._capture_job = (base, job)
        return base | {"capture_pending": True}

    def cmd_artifacts(self, req: ArtifactsRequest):
        """The compiled module's compiler artifacts, once the background capture is done."""
        job, self._capture_job = self._capture_job, None
        if job is None:
            return {"artifacts": None}
        base, capture = job
        t0 = time.perf_counter()
        done = capture.finish()
        unavailable = base.get("unavailable", {}) | done.get("unavailable", {})
        return {"artifacts": base | done | {"unavailable": unavailable, "wait_s": time.perf_counter() - t0}}

    @staticmethod
    def _memory_analysis(compiled) -> dict:
        try:
            m = compiled.memory_analysis()
        except Exception:
            return {}
        if m is None:
            return {}
        memory = {"argument": int(m.argument_size_in_bytes), "output": int(m.output_size_in_bytes),
                  "temp": int(m.temp_size_in_bytes)}
        # The lane's share of the GPU (XLA_PYTHON_CLIENT_MEM_FRACTION): what the harness weighs an
        # out-of-memory of this module against. None on the CPU.
        limit = Executor._device_limit()
        return memory | ({"device_limit": limit} if limit is not None else {})

    @staticmethod
    def _device_limit():
        import jax

        try:
            stats = jax.devices()[0].memory_stats() or {}
        except Exception:  # a backend without memory statistics
            return None
        limit = stats.get("bytes_limit")
        return int(limit) if limit is not None else None

    def _call(self, inputs):
        import jax

        try:
            out = jax.block_until_ready(self.compiled(*inputs))
        except Exception as exc:
            raise CommandError("runtime_error", f"the kernel raised: {type(exc).__name__}: {exc}") from exc
        return out

    def cmd_run(self, req: RunRequest):
        """Run the compiled module on the given inputs `len(outputs)` times; save each output."""
        if self.compiled is None:
            raise CommandError("usage_error", "run before compile")
        import jax

        inputs = [jax.device_put(x) for x in tensors.load_inputs(req.inputs, self._input_dtypes)]
        return {"outputs": [tensors.save(path, self._call(inputs)) for path in req.outputs]}

    def cmd_time(self, req: TimeRequest):
        """Timing samples of warm calls of the compiled module; with `output`, the output of
        the batch's last timed call is saved there for the harness to recheck."""
        if self.compiled is None:
            raise CommandError("usage_error", "time before compile")
        reply = self._sampler.timed(self.compiled, self._device_inputs.get(req.inputs, self._input_dtypes), req)
        last, self._sampler.last_output = self._sampler.last_output, None
        if req.output is not None:
            reply["output"] = tensors.save(req.output, last)
        return reply | {"peak_bytes": self._peak_bytes()}

    @staticmethod
    def _peak_bytes():
        import jax

        stats = jax.devices()[0].memory_stats() or {}
        peak = stats.get("peak_bytes_in_use")
        return int(peak) if peak is not None else None


def main() -> int:
    channel = server.claim_stdout()
    import jax

    if (cache_dir := compile_cache.parse_argument(sys.argv[1:])) is not None:
        compile_cache.enable(cache_dir)  # --compile-cache: given to the trusted roles only
    jax.numpy.zeros(1).block_until_ready()  # backend up before the first module arrives
    # Its device pool (the lane's share of the GPU; None on the CPU): what an out-of-memory while
    # compiling, which leaves no memory analysis, is weighed against.
    return server.serve(Executor(), channel, {"environment": environment.environment(),
                                             "device_limit": Executor._device_limit()})


if __name__ == "__main__":
    sys.exit(main())
