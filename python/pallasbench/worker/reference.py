"""The reference process (trusted): `python -m pallasbench.worker.reference`.

It describes the suite, makes each seed's inputs and the reference output, times the XLA
baseline and measures the device's roofline ceilings. It never imports candidate code, and no
candidate kernel ever runs in it; its reference outputs never exist in the executor's process or
CUDA context (docs/architecture.md).
"""

from __future__ import annotations

import inspect
import os
import sys
from collections import OrderedDict
from pathlib import Path

import numpy as np

from pallasbench.task import dtypes, registry, stress
from pallasbench import task as tl
from pallasbench.worker import (ceilings, compile_cache, environment, interpret, platform, sampling, server, sources,
                                tensors)
from pallasbench.worker.protocol import (CommandError, DescribeRequest, DeviceRequest, ReferenceRequest,
                                         TimeReferenceRequest)


def _kept_input_bytes() -> int:
    """At most a quarter of the machine's memory, and 8 GiB."""
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        memory = 16 << 30
    return min(8 << 30, memory // 4)


KEPT_INPUT_BYTES = _kept_input_bytes()


def _nbytes(arrays) -> int:
    return sum(int(np.asarray(a).nbytes) for a in arrays)


def _output_dtype(module, info: dict) -> str:
    """The reference's output dtype, from the shapes and dtypes describe already holds."""
    import jax

    small = info["shapes"]["small"]
    avals = [jax.ShapeDtypeStruct(tuple(small[i.name]), np.dtype(info["dtypes"][i.name])) for i in module.INPUTS]
    return str(jax.eval_shape(module.reference, *avals).dtype)


# How the large case's factor shrinks at a dtype that cannot hold its reference (float16).
LARGE_FACTOR_STEP = 10 ** 0.5


def _narrower_than_float32(dtype: str) -> bool:
    """Whether the dtype's largest finite value is below float32's (float16; bfloat16 has
    float32's exponent range)."""
    import ml_dtypes

    return ml_dtypes.finfo(dtypes.numpy_dtype(dtype)).maxexp < ml_dtypes.finfo(np.float32).maxexp


class Reference:
    ROLE = "reference"

    def __init__(self):
        self.reference_fns: dict = {}
        self._inputs: OrderedDict = OrderedDict()  # (task, size, seed) -> read-only input arrays
        self._sampler = sampling.Sampler()
        self._device_inputs = tensors.DeviceInputs()
        self._prepared = None  # (request fields, module, inputs, files) of an inputs_only request
        self._compiled: dict = {}  # (task, precision, shapes and dtypes) -> compiled reference or platform
        self._fitted = None  # (request fields, reference) computed while fitting a large case

    def cmd_describe(self, req: DescribeRequest):
        # Named tasks the suite lacks are left out, not errors: the harness's selection names them.
        known = registry.discover()
        names = sorted(known) if req.tasks is None else [name for name in req.tasks if name in known]
        tasks, errors, task_files = [], [], {}
        for name in names:
            try:
                module = registry.load(name)
                info = registry.describe(module)
                info |= {f"kernel_{k}": v for k, v in sources.source_facts(Path(module.__file__)).items()}
                info["sha256"] = info["kernel_sha256"]
                info["reference_source"] = inspect.getsource(module.reference)
                info["output_dtype"] = _output_dtype(module, info)
                info["views"] = dtypes.views(module, info["dtypes"], info["output_dtype"],
                                             {"float32": info["bytes"], **registry.bytes_by_dtype(module)})
                tasks.append(info)
                task_files[name] = (info["kernel_source"], f"tasks/level{info['level']}/{name}.py")
            except Exception as exc:  # one broken task file must not hide the others
                errors.append({"name": name, "error": f"{type(exc).__name__}: {exc}"})
        candidates = {}
        for path in req.candidate_files:
            facts = sources.source_facts(Path(path), req.max_source_bytes)
            # Against the suite's file of each task it is evaluated on (the record's `diff`).
            facts["diffs"] = {}
            for name in req.diff_against.get(path, []):
                if name in task_files:
                    task_source, task_file = task_files[name]
                    facts["diffs"][name] = sources.unified_diff(task_source, facts["source"], task_file)
            candidates[path] = facts
        return {"tasks": tasks, "errors": errors, "candidates": candidates,
                "git_sha": environment.git_sha(registry.project_root())}

    def _base_inputs(self, module, size: str, seed: int) -> tuple:
        """make_inputs for (task, size, seed), made once per evaluation: an evaluation asks for
        its check seeds, then for the first check seed's inputs again once per input (the
        input-impact filter perturbs them one at a time, after every seed and the stress cases:
        src/orchestrate/evaluator_checks.cpp), then for the timing set. So the sets of the
        current (task, size) are kept, least recently used first out, within a memory budget
        (KEPT_INPUT_BYTES: three LARGE seeds of a two-input elementwise task on a 128 GiB machine).
        The kept arrays are read-only: nothing that uses them can change a later request's."""
        key = (module.NAME, size, seed)
        if any(k[:2] != key[:2] for k in self._inputs):
            self._inputs.clear()  # another task or size: its sets are not asked for again
        if key in self._inputs:
            self._inputs.move_to_end(key)
            return self._inputs[key]
        made = tuple(np.asarray(a) for a in module.make_inputs(np.random.default_rng(seed), module.SHAPES[size]))
        for array in made:
            array.flags.writeable = False
        self._inputs[key] = made
        while len(self._inputs) > 1 and sum(_nbytes(v) for v in self._inputs.values()) > KEPT_INPUT_BYTES:
            self._inputs.popitem(last=False)
        return made

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

    def cmd_reference(self, req: ReferenceRequest):
        """Fresh inputs for one seed (one input perturbed, or a stress case's, when asked) and
        the reference output; with inputs_only, the inputs alone, kept for the next request of
        the same fields, which then only makes the output. With platform, the same inputs'
        output of XLA at the task's precision class instead (no inputs written)."""
        self._device_inputs.drop()
        if req.platform:
            return self._platform_reply(req)
        key = (req.task, req.size, req.seed, req.stress, req.perturb, req.dir, req.dtype)
        prepared, self._prepared = self._prepared, None
        if req.inputs_only and self._drawing_runs_references(req):
            return {"inputs": []}  # drawing these inputs runs references: all in the next request
        if prepared is not None and prepared[0] == key and not req.inputs_only:
            module, inputs, written, factor = prepared[1:]
        else:
            module, inputs, written, factor = self._write_inputs(req)
        if req.inputs_only:
            # The reference's compile too: host work, so it holds no device lease either.
            try:
                self._compiled_reference(module, inputs)
            except Exception as exc:
                raise CommandError("task_error", f"reference of '{module.NAME}' failed: {exc}") from exc
            self._prepared = (key, module, inputs, written, factor)
            return {"inputs": written}
        fitted, self._fitted = self._fitted, None
        try:
            if fitted is not None and fitted[0] == key:
                ref = fitted[1]
            else:
                ref = self._run_reference(module, inputs)
        except Exception as exc:
            raise CommandError("task_error", f"reference of '{module.NAME}' failed: {exc}") from exc
        # Computed in float64 on the rounded inputs, rounded to the output's dtype at this run's.
        ref = self._at_output_dtype(np.asarray(ref), inputs, req.dtype)
        reply = {"inputs": written, "output": tensors.save(str(Path(req.dir) / "ref.npy"), ref)}
        if factor is not None:
            reply["large_factor"] = factor  # the factor the large case used (it may shrink at float16)
        return reply

    @staticmethod
    def _at_output_dtype(output: np.ndarray, inputs, dtype: str) -> np.ndarray:
        wanted = dtypes.output_at_dtype(output.dtype.name, [np.asarray(x).dtype.name for x in inputs], dtype)
        return output.astype(dtypes.numpy_dtype(wanted))

    def _platform_reply(self, req: ReferenceRequest):
        """XLA's own output on the request's inputs at the task's precision class
        (worker/platform.py), rounded to the run's output dtype: what the harness measures the
        platform's error with, on a case a candidate missed the tolerance on, or on every case
        of a candidate computing below the class."""
        module, inputs, factor = self._drawn_inputs(req)
        try:
            at_dtype = [np.asarray(x).astype(dtypes.numpy_dtype(dtypes.at_dtype(np.asarray(x).dtype.name, req.dtype)))
                        for x in inputs]
            out = np.asarray(self._compiled_platform(module, at_dtype, req.dtype)(*at_dtype))
        except Exception as exc:
            raise CommandError("task_error", f"XLA's implementation of '{module.NAME}' at its precision class "
                               f"failed: {exc}") from exc
        out = self._at_output_dtype(out.astype(np.float32) if dtypes.is_float(out.dtype.name) else out, inputs,
                                    req.dtype)
        reply = {"inputs": [], "output": tensors.save(str(Path(req.dir) / "platform.npy"), out)}
        if factor is not None:
            reply["large_factor"] = factor
        return reply

    def _write_inputs(self, req: ReferenceRequest):
        """The request's inputs, drawn and written as .npy files into its dir: (module, arrays,
        the files' descriptions, the large case's factor or None)."""
        module, inputs, factor = self._drawn_inputs(req)
        shapes = module.SHAPES[req.size]
        out_dir = Path(req.dir)
        written = []
        for spec, array in zip(module.INPUTS, inputs):
            if tuple(array.shape) != tuple(shapes[spec.name]):
                raise CommandError("task_error", f"task '{module.NAME}': make_inputs gave "
                                   f"{spec.name} shape {array.shape}, SHAPES says {shapes[spec.name]}")
            logical = dtypes.at_dtype(np.asarray(array).dtype.name, req.dtype)
            written.append(tensors.save(str(out_dir / f"in_{spec.name}.npy"), array, logical) | {"name": spec.name})
        return module, inputs, written, factor

    def _drawn_inputs(self, req: ReferenceRequest):
        """The request's inputs as float32 arrays holding the run dtype's values: (module,
        arrays, the large case's factor or None)."""
        module = registry.load(req.task)
        if req.size not in module.SHAPES:
            raise CommandError("usage_error", f"reference: task '{module.NAME}' has no size '{req.size}' "
                               f"(it has {', '.join(module.SHAPES)})")
        shapes = module.SHAPES[req.size]
        case = req.stress
        factor = None
        if case is not None:
            try:
                inputs, factor = self._stress_inputs(module, req, shapes)
            except ValueError as exc:
                raise CommandError("task_error", str(exc)) from exc
        else:
            inputs = list(self._base_inputs(module, req.size, req.seed))
        if req.perturb is not None:
            index = req.perturb
            if index >= len(inputs):
                raise CommandError("usage_error", f"perturb: no input {index} in '{module.NAME}'")
            rng = np.random.default_rng([req.seed, 7919, index])
            inputs[index] = tl.perturb(rng, inputs[index], module.INPUTS[index].domain)
        # Drawn as at float32, then rounded to the run's dtype (nearest even): the reference and
        # the kernel see the same values.
        return module, [dtypes.round_to(array, req.dtype) for array in inputs], factor

    def _stress_inputs(self, module, req: ReferenceRequest, shapes: dict) -> tuple:
        """A stress case's inputs. A task's STRESS sets its large factor where the reference
        stays finite, at float32. float16 holds less (65504): the matmul class's x1e3 rounds its
        large reference to Inf but where the sum cancelled, and those few elements, compared
        alone, fail even an exact float32 computation (mlp_block). At such a dtype the factor
        shrinks by sqrt(10) at a time, down to 1, until the float64 reference fits it (the
        reference made for the check is kept for the request's output). Returns the inputs and
        the large case's factor (None for another case)."""
        factor = module.STRESS.large_factor
        while True:
            rng = np.random.default_rng(req.seed)
            inputs = stress.make_inputs(module, req.stress, rng, shapes, factor)
            used = factor if req.stress == "large" else None
            if req.stress != "large" or factor <= 1 or not _narrower_than_float32(req.dtype):
                return inputs, used
            rounded = [dtypes.round_to(a, req.dtype) for a in inputs]
            ref = self._run_reference(module, rounded)
            wide = np.asarray(ref, np.float64)
            with np.errstate(over="ignore"):
                overflows = np.isfinite(wide) & ~np.isfinite(wide.astype(dtypes.numpy_dtype(req.dtype)))
            if not overflows.any():
                if req.perturb is None:
                    key = (req.task, req.size, req.seed, req.stress, req.perturb, req.dir, req.dtype)
                    self._fitted = (key, ref)
                return inputs, used
            factor = max(1.0, factor / LARGE_FACTOR_STEP)

    @staticmethod
    def _drawing_runs_references(req: ReferenceRequest) -> bool:
        """Whether drawing the request's inputs runs references on the device: a large case
        at a dtype narrower than float32 (_stress_inputs)."""
        return req.stress == "large" and _narrower_than_float32(req.dtype)

    def _compile_once(self, key: tuple, make, avals, wide: bool = False):
        """make() lowered for `avals` and compiled, once per evaluation's task (key[0] is the
        task). On the GPU without XLA's autotuning: autotuning runs kernels on the device, and
        the compile then needs no device lease (neither output's speed is measured; the timed
        XLA baseline is compiled apart, autotuned: cmd_time_reference)."""
        import jax

        if key not in self._compiled:
            if any(k[0] != key[0] for k in self._compiled):
                self._compiled.clear()  # another task: its references are not asked for again
            options = {} if interpret.on_cpu() else {"xla_gpu_autotune_level": 0}
            fn = make()
            jitted = fn if hasattr(fn, "lower") else jax.jit(fn)
            with jax.enable_x64(wide):
                self._compiled[key] = jitted.lower(*avals).compile(compiler_options=options)
        return self._compiled[key]

    def _compiled_reference(self, module, inputs):
        """The correctness reference, float64 for float inputs, compiled for these inputs'
        shapes."""
        import jax

        avals = tuple(jax.ShapeDtypeStruct(np.shape(x), np.float64 if np.issubdtype(np.asarray(x).dtype, np.floating)
                                           else np.asarray(x).dtype) for x in inputs)
        key = (module.NAME, "float64", tuple((a.shape, a.dtype.name) for a in avals))
        return self._compile_once(key, lambda: self._reference_fn(module, "float64"), avals, wide=True)

    def _compiled_platform(self, module, inputs, dtype: str):
        """XLA's implementation at the task's precision class, compiled for these inputs."""
        import jax

        avals = tuple(jax.ShapeDtypeStruct(np.shape(x), np.asarray(x).dtype) for x in inputs)
        key = (module.NAME, f"platform/{dtype}", tuple((a.shape, a.dtype.name) for a in avals))
        return self._compile_once(key, lambda: platform.implementation(module, dtype), avals)

    def _run_reference(self, module, inputs):
        """The correctness reference, the truth every case is judged against: float64 (an f32
        reference's own rounding is of the order of a float32 task's tolerance on long sums, on
        an offset of 1e3 or a scale of 1e3, and the platform's own error is measured against it:
        docs/measurement.md), rounded back to the dtype the reference gives on the inputs."""
        import jax

        compiled = self._compiled_reference(module, inputs)
        out_dtype = jax.eval_shape(module.reference, *inputs).dtype
        wide = [x.astype(np.float64) if np.issubdtype(x.dtype, np.floating) else x for x in inputs]
        with jax.enable_x64(True):
            ref = np.asarray(compiled(*wide))
        return ref.astype(out_dtype)

    def cmd_time_reference(self, req: TimeReferenceRequest):
        """Timing samples of the XLA reference at the given matmul precision."""
        module = registry.load(req.task)
        fn = self._reference_fn(module, req.precision)
        # At a low-precision dtype the baseline is the reference at that dtype: XLA's own kernels
        # on the dtype's arrays (the files hold float32; the cast happens before timing).
        wanted = None
        if req.dtype != dtypes.FLOAT32:
            wanted = [dtypes.at_dtype(str(np.load(p, mmap_mode="r").dtype), req.dtype) for p in req.inputs]
        reply = self._sampler.timed(fn, self._device_inputs.get(req.inputs, wanted), req)
        self._sampler.last_output = None  # the baseline's output is never checked
        return reply

    def cmd_device(self, req: DeviceRequest):
        """The device timer's view of the GPU (L2 size, SM clocks, throttle reasons) and, when
        asked, the device's ceilings for the roofline (measured once per run)."""
        timer, error = self._sampler.device_timer()
        if timer is None:
            return {"timer": "wall", "timer_error": error}
        reply = {"timer": "cupti", "device": timer.device}
        if req.ceilings:
            reply["ceilings"] = ceilings.measure(timer)
        return reply


def main() -> int:
    channel = server.claim_stdout()
    try:
        if (cache_dir := compile_cache.parse_argument(sys.argv[1:])) is not None:
            # --compile-cache: the references' and the XLA baseline's jit too (no time of theirs
            # is recorded as a compile time; the folder is the user's, like the executor's).
            compile_cache.enable(cache_dir)
        if interpret.on_cpu():
            interpret.enable_interpret_default()  # tasks import pallas kernels; they never run here
        env = environment.environment()
    except Exception as exc:  # the greeting says why, for the harness to tell the user
        failure = {"kind": "no_backend", "message": environment.backend_failure(exc)}
        channel.write(server.encode_reply({"ready": False, "role": Reference.ROLE, "error": failure}) + "\n")
        return 1
    return server.serve(Reference(), channel, {"environment": env, "python_paths": environment.python_paths()})


if __name__ == "__main__":
    sys.exit(main())
