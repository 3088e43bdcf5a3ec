"""The worker the C++ orchestrator drives: `python -m pallasbench.worker`.

Protocol: one JSON object per line. The worker announces itself with {"ready": true, ...}, then
answers each request {"id": n, "cmd": ...} with {"id": n, "ok": true, ...} or
{"id": n, "ok": false, "error": {"kind": ..., "message": ..., "traceback": ...}}. Tensors travel
as .npy files in the scratch directory the orchestrator names. Whatever a candidate prints goes to
stderr: the protocol owns the real stdout.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import shutil
import sys
import time
import traceback
from pathlib import Path

import numpy as np

from pallasbench import ceilings, compiler_artifacts, device_timer, interpret, jaxpr_info, registry
from pallasbench import tasklib as tl


class CommandError(Exception):
    """A failure to report with its kind: compile_error, runtime_error, task_error, usage_error."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


def _claim_stdout():
    """Keep the real stdout for the protocol; send fd 1 (candidate prints) to stderr."""
    protocol = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return protocol


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _environment() -> dict:
    import jax
    import jaxlib

    env = {
        "python": sys.version.split()[0],
        "jax": jax.__version__,
        "jaxlib": jaxlib.__version__,
        "backend": jax.default_backend(),
        "device_kind": jax.devices()[0].device_kind,
        "device_count": jax.device_count(),
        "triton": None,
        "gpu_name": None,
        "driver": None,
        "cuda": None,
        "hostname": os.uname().nodename,
    }
    try:
        import triton

        env["triton"] = triton.__version__
    except ImportError:
        pass
    if env["backend"] == "gpu":
        env["gpu_name"] = env["device_kind"]
        env.update(_nvidia_versions())
    return env


def _nvidia_versions() -> dict:
    """Driver and CUDA versions as nvidia-smi reports them (None where it cannot say)."""
    import re
    import subprocess

    try:
        text = subprocess.run(["nvidia-smi"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    driver = re.search(r"Driver Version:\s*([\d.]+)", text)
    cuda = re.search(r"CUDA Version:\s*([\d.]+)", text)
    return {"driver": driver.group(1) if driver else None, "cuda": cuda.group(1) if cuda else None}


def _git_sha(root: Path) -> str | None:
    head = root / ".git" / "HEAD"
    try:
        ref = head.read_text().strip()
        if ref.startswith("ref: "):
            return (root / ".git" / ref[5:]).read_text().strip()
        return ref
    except OSError:
        return None


def _bundled_source(module, source: str) -> str:
    """The kernel file followed by the shared kernel modules it uses (pallasbench.kernels.*),
    so a record's triton_code holds every line of the kernel."""
    parts = [source]
    for value in vars(module).values():
        name = getattr(value, "__name__", "")
        if isinstance(value, type(sys)) and name.startswith("pallasbench.kernels."):
            parts.append(f"\n# ---- {name} ----\n" + Path(value.__file__).read_text())
    return "".join(parts)


def _save(path: str, array) -> dict:
    out = np.asarray(array)
    np.save(path, out, allow_pickle=False)
    return {"path": path, "shape": list(out.shape), "dtype": out.dtype.name}


def _load_inputs(paths: list[str]) -> list[np.ndarray]:
    # Memory-mapped: device_put reads the file once, with no host copy in between.
    return [np.load(p, allow_pickle=False, mmap_mode="r") for p in paths]


class Worker:
    def __init__(self):
        self.compiled = None  # the candidate's compiled executable, kept across seeds
        self.candidate = None
        self.reference_fns: dict = {}
        self._timing_key, self._timing_inputs = None, None
        self._inputs_key, self._inputs = None, ()
        self._timer, self._timer_error = None, None  # the device timer, loaded on first use
        self._capture_job = None  # (artifacts so far, CaptureJob) of the loaded candidate

    # -- reference side ------------------------------------------------------------------------

    def cmd_describe(self, req):
        names = req.get("tasks") or sorted(registry.discover())
        tasks, errors = [], []
        for name in names:
            try:
                module = registry.load(name)
                info = registry.describe(module)
                info["sha256"] = _sha256(Path(module.__file__))
                tasks.append(info)
            except Exception as exc:  # one broken task file must not hide the others
                errors.append({"name": name, "error": f"{type(exc).__name__}: {exc}"})
        candidates = {}
        for path in req.get("candidate_files") or []:
            candidates[path] = _sha256(Path(path))
        return {"tasks": tasks, "errors": errors, "candidate_sha256": candidates,
                "git_sha": _git_sha(registry.project_root())}

    def _base_inputs(self, module, size: str, seed: int) -> tuple:
        """make_inputs for (task, size, seed); the last set is kept, since the input-impact
        filter perturbs seed 0's inputs one input at a time (LARGE inputs take seconds)."""
        key = (module.NAME, size, seed)
        if self._inputs_key != key:
            self._inputs_key = None  # never keep a set paired with the wrong key
            self._inputs = tuple(module.make_inputs(np.random.default_rng(seed), module.SHAPES[size]))
            self._inputs_key = key
        return self._inputs

    def _reference_fn(self, module, precision: str):
        import jax

        key = (module.NAME, precision)
        if key not in self.reference_fns:
            matmul_precision = "highest" if precision == "float64" else precision

            def run(*xs):
                with jax.default_matmul_precision(matmul_precision):
                    return module.reference(*xs)
            self.reference_fns[key] = jax.jit(run)
        return self.reference_fns[key]

    def cmd_reference(self, req):
        """Fresh inputs for one seed (one input perturbed when asked) and the reference output."""
        self._drop_timing_inputs()
        module = registry.load(req["task"])
        shapes = module.SHAPES[req["size"]]
        inputs = list(self._base_inputs(module, req["size"], req["seed"]))
        if req.get("perturb") is not None:
            index = int(req["perturb"])
            if not 0 <= index < len(inputs):
                raise CommandError("usage_error", f"perturb: no input {index} in '{module.NAME}'")
            rng = np.random.default_rng([req["seed"], 7919, index])
            inputs[index] = tl.perturb(rng, inputs[index], module.INPUTS[index].domain)
        out_dir = Path(req["dir"])
        written = []
        for spec, array in zip(module.INPUTS, inputs):
            if tuple(array.shape) != tuple(shapes[spec.name]):
                raise CommandError("task_error", f"task '{module.NAME}': make_inputs gave "
                                   f"{spec.name} shape {array.shape}, SHAPES says {shapes[spec.name]}")
            written.append(_save(str(out_dir / f"in_{spec.name}.npy"), array) | {"name": spec.name})
        try:
            ref = self._run_reference(module, inputs)
        except Exception as exc:
            raise CommandError("task_error", f"reference of '{module.NAME}' failed: {exc}") from exc
        return {"inputs": written, "output": _save(str(out_dir / "ref.npy"), ref)}

    def _run_reference(self, module, inputs):
        """The correctness reference: f32 at full matmul precision, or float64 when the task
        declares REFERENCE_FLOAT64 (long f32 sums whose own rounding error is of the order of
        the tolerance), rounded back to the f32 reference's dtype."""
        import jax

        if not getattr(module, "REFERENCE_FLOAT64", False):
            return jax.block_until_ready(self._reference_fn(module, "highest")(*inputs))
        out_dtype = jax.eval_shape(module.reference, *inputs).dtype
        wide = [x.astype(np.float64) if np.issubdtype(x.dtype, np.floating) else x for x in inputs]
        with jax.enable_x64(True):
            ref = np.asarray(self._reference_fn(module, "float64")(*wide))
        return ref.astype(out_dtype)

    def cmd_time_reference(self, req):
        """Timing samples of the XLA reference at the given matmul precision (as cmd_time)."""
        module = registry.load(req["task"])
        fn = self._reference_fn(module, req.get("precision", "highest"))
        return self._timed(fn, self._time_inputs(req["inputs"]), req)

    def cmd_device(self, req):
        """The device timer's view of the GPU (L2 size, SM clocks, throttle reasons) and, when
        asked, the device's ceilings for the roofline (measured once per run)."""
        timer, error = self._device_timer()
        if timer is None:
            return {"timer": "wall", "timer_error": error}
        reply = {"timer": "cupti", "device": timer.device}
        if req.get("ceilings"):
            reply["ceilings"] = ceilings.measure(timer)
        return reply

    # -- candidate side ------------------------------------------------------------------------

    def _import_candidate(self, spec):
        if "task" in spec:
            module = registry.load(spec["task"])
            return module.kernel, module
        path = Path(spec["file"])
        try:
            module = registry.import_file(path, "pallasbench_candidate")
        except SyntaxError as exc:
            raise CommandError("compile_error", f"{path}: syntax error: {exc}") from exc
        except Exception as exc:
            raise CommandError("compile_error",
                               f"{path}: import failed: {type(exc).__name__}: {exc}") from exc
        fn = getattr(module, "kernel", None)
        if not callable(fn):
            raise CommandError("compile_error", f"{path}: defines no callable 'kernel'")
        return fn, module

    def cmd_load(self, req):
        """Import the candidate, trace it with jax.jit, lower and compile for the task's shapes."""
        import jax

        self._drop_timing_inputs()
        self._capture_job = None
        fn, module = self._import_candidate(req["candidate"])
        abstract = [jax.ShapeDtypeStruct(tuple(s["shape"]), np.dtype(s["dtype"]))
                    for s in req["inputs"]]
        jitted = jax.jit(fn)
        capture = self._artifact_request(req)
        try:
            t0 = time.perf_counter()
            lowered = jitted.lower(*abstract)
            t1 = time.perf_counter()
            compiled = lowered.compile()
            t2 = time.perf_counter()
            closed = jax.make_jaxpr(fn)(*abstract)
        except Exception as exc:
            raise CommandError("compile_error", f"tracing or compiling 'kernel' failed: "
                               f"{type(exc).__name__}: {exc}") from exc
        self.compiled, self.candidate = compiled, fn
        source = Path(module.__file__).read_text()
        return {
            "source": source,
            "bundled_source": _bundled_source(module, source),
            "sha256": hashlib.sha256(source.encode()).hexdigest(),
            "reference_source": self._reference_source(req),
            "jaxpr": str(closed),
            "stablehlo": lowered.as_text(),
            "pallas_calls": jaxpr_info.pallas_calls(closed),
            "jaxpr_graph": jaxpr_info.equation_graph(closed),
            "jaxpr_dag": jaxpr_info.dag(closed),
            "task_modules_loaded": self._task_code_used(req["candidate"], closed),
            "lower_s": t1 - t0,
            "compile_s": t2 - t1,
            "memory": self._memory_analysis(compiled),
            "artifacts": self._artifacts(req, capture, lowered),
        }

    @staticmethod
    def _artifact_request(req) -> dict | None:
        """Where the compiler artifacts go, when they are wanted on a GPU."""
        wanted = req.get("artifacts") or {}
        if wanted.get("mode", "none") == "none" or interpret.on_cpu():
            return None
        return {"out": Path(wanted["dir"]), "pass_trail": bool(wanted.get("pass_trail"))}

    def cmd_artifacts(self, req):
        """The loaded candidate's compiler artifacts, once the background capture is done."""
        job, self._capture_job = self._capture_job, None
        if job is None:
            return {"artifacts": None}
        base, capture = job
        t0 = time.perf_counter()
        done = capture.finish()
        unavailable = base.get("unavailable", {}) | done.get("unavailable", {})
        return {"artifacts": base | done | {"unavailable": unavailable, "wait_s": time.perf_counter() - t0}}

    def _artifacts(self, req, capture, lowered) -> dict:
        mode = (req.get("artifacts") or {}).get("mode", "none")
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

    @staticmethod
    def _task_code_used(spec, closed) -> list[str]:
        """Task files whose code a user candidate imported or ran while tracing, however it
        reached them: this worker never imports a task for a user candidate."""
        if "task" in spec:
            return []
        tasks = registry.tasks_dir().resolve()
        files = {getattr(m, "__file__", None) for m in list(sys.modules.values())}
        files |= jaxpr_info.traced_files(closed)
        used = {str(Path(f).resolve().relative_to(registry.project_root().resolve()))
                for f in files if f and Path(f).resolve().is_relative_to(tasks)}
        return sorted(used)

    @staticmethod
    def _reference_source(req):
        name = req.get("task_name")
        if not name:
            return None
        return inspect.getsource(registry.load(name).reference)

    @staticmethod
    def _memory_analysis(compiled) -> dict:
        try:
            m = compiled.memory_analysis()
        except Exception:
            return {}
        if m is None:
            return {}
        return {"argument": int(m.argument_size_in_bytes), "output": int(m.output_size_in_bytes),
                "temp": int(m.temp_size_in_bytes)}

    def _call(self, inputs):
        import jax

        try:
            out = jax.block_until_ready(self.compiled(*inputs))
        except Exception as exc:
            raise CommandError("runtime_error",
                               f"'kernel' raised: {type(exc).__name__}: {exc}") from exc
        if not isinstance(out, jax.Array):
            raise CommandError("runtime_error", f"'kernel' returned {type(out).__name__}, "
                               "expected one array")
        return out

    def cmd_run(self, req):
        """Run the compiled candidate on the given inputs `len(outputs)` times; save each output."""
        if self.compiled is None:
            raise CommandError("usage_error", "run before load")
        import jax

        inputs = [jax.device_put(x) for x in _load_inputs(req["inputs"])]
        return {"outputs": [_save(path, self._call(inputs)) for path in req["outputs"]]}

    def cmd_time(self, req):
        """Timing samples of warm candidate calls: device time from CUPTI on a GPU, host wall
        clock in CPU interpret mode (labelled by 'timer')."""
        if self.compiled is None:
            raise CommandError("usage_error", "time before load")
        reply = self._timed(self._call_compiled, self._time_inputs(req["inputs"]), req)
        return reply | {"peak_bytes": self._peak_bytes()}

    def _call_compiled(self, *inputs):
        return self.compiled(*inputs)

    def _time_inputs(self, paths):
        """Device inputs for timing, read and placed once per set of files (timing comes in
        batches); dropped when the worker moves on to another task."""
        import jax

        key = tuple(paths)
        if self._timing_key != key:
            self._timing_key = key
            self._timing_inputs = [jax.device_put(x) for x in _load_inputs(paths)]
        return self._timing_inputs

    def _drop_timing_inputs(self):
        self._timing_key, self._timing_inputs = None, None

    def _device_timer(self):
        """(DeviceTimer, None) on a GPU where the timer loads; else (None, why not)."""
        if interpret.on_cpu():
            return None, None
        if self._timer is None and self._timer_error is None:
            try:
                self._timer = device_timer.DeviceTimer()
            except device_timer.TimerUnavailable as exc:
                self._timer_error = str(exc)
        return self._timer, self._timer_error

    def _timed(self, fn, inputs, req) -> dict:
        """inputs: the device arrays of _time_inputs (placed once per set of files)."""
        self._warm_up(fn, inputs, int(req.get("warmup", 0)))
        timer, error = self._device_timer()
        if timer is not None:
            return timer.sample(fn, inputs, int(req.get("max_samples", 1000)),
                                float(req.get("max_seconds", 5.0)))
        reply = {"timer": "wall", "samples_us": self._time(fn, inputs, req)}
        if error:
            reply["timer_error"] = error
        return reply

    @staticmethod
    def _warm_up(fn, inputs, minimum: int):
        """At least `minimum` calls, more (up to 50) while calls still get faster: first-call
        allocation, autotuning and caches settle before any sample counts."""
        import jax

        if minimum <= 0:
            return
        times = []
        while len(times) < 50:
            t0 = time.perf_counter()
            jax.block_until_ready(fn(*inputs))
            times.append(time.perf_counter() - t0)
            if len(times) >= max(minimum, 3) and times[-1] <= 1.25 * min(times[-3:-1]):
                return

    @staticmethod
    def _time(fn, inputs, req) -> list[float]:
        """Wall-clock samples of fn(*inputs) in microseconds, each ending with block_until_ready,
        until both min_samples and min_seconds are reached, or max_samples / max_seconds end it."""
        import jax

        samples: list[float] = []
        start = time.perf_counter()
        while True:
            t0 = time.perf_counter()
            jax.block_until_ready(fn(*inputs))
            samples.append((time.perf_counter() - t0) * 1e6)
            elapsed = time.perf_counter() - start
            enough = len(samples) >= req.get("min_samples", 10) and elapsed >= req.get("min_seconds", 0.2)
            if enough or len(samples) >= req.get("max_samples", 1000) or elapsed >= req.get("max_seconds", 5.0):
                return samples

    @staticmethod
    def _peak_bytes():
        import jax

        stats = jax.devices()[0].memory_stats() or {}
        peak = stats.get("peak_bytes_in_use")
        return int(peak) if peak is not None else None

    def cmd_shutdown(self, req):
        return {"bye": True}


def main() -> int:
    protocol = _claim_stdout()
    from pallasbench import interpret

    if interpret.on_cpu():
        interpret.enable_interpret_default()
    worker = Worker()
    protocol.write(json.dumps({"ready": True, "pid": os.getpid(),
                               "environment": _environment()}) + "\n")
    for line in sys.stdin:
        if not line.strip():
            continue
        reply = _handle(worker, line)
        protocol.write(json.dumps(reply) + "\n")
        if reply.get("bye"):
            break
    return 0


def _handle(worker: Worker, line: str) -> dict:
    try:
        req = json.loads(line)
    except json.JSONDecodeError as exc:
        return {"id": None, "ok": False, "error": {"kind": "usage_error", "message": str(exc)}}
    handler = getattr(worker, f"cmd_{req.get('cmd')}", None)
    if handler is None:
        return {"id": req.get("id"), "ok": False,
                "error": {"kind": "usage_error", "message": f"unknown command {req.get('cmd')!r}"}}
    try:
        return {"id": req.get("id"), "ok": True, **handler(req)}
    except CommandError as exc:
        kind, message = exc.kind, str(exc)
    except registry.TaskError as exc:
        kind, message = "task_error", str(exc)
    except Exception as exc:  # the worker survives anything a candidate throws
        kind, message = "runtime_error", f"{type(exc).__name__}: {exc}"
    return {"id": req.get("id"), "ok": False,
            "error": {"kind": kind, "message": message, "traceback": traceback.format_exc()}}


if __name__ == "__main__":
    sys.exit(main())
