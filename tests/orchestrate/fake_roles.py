"""A stand-in for the three harness processes (reference, executor, tracer) in the evaluator's and
the runner's unit tests (tests/orchestrate/test_evaluator.cpp, test_runner.cpp).

It learns its role from PALLASBENCH_ROLE (set by worker.cpp for every worker) and its script from
FAKE_SCENARIO: comma-separated behaviours, each `name` (every task) or `name:task` (that task
only). Without one it is honest. It speaks the protocol of docs/protocol.md (python/pallasbench/worker/protocol.py) with
the request and reply fields the C++ uses, on tiny float32 tensors it writes and reads as NPY v1
by hand: it imports nothing heavier than json/os/signal/struct/sys/time, so it starts in a few
tens of milliseconds.

Behaviours: reference: die_reference (exits during "reference"); tracer: trace_compile_error,
trace_hang; executor: hang_load, kernel_ir (load hands over a real f32 Triton kernel's IR),
foreign_call (a host callback beside the kernel), artifacts_ok / artifacts_fail / artifacts_hang
(the capture pending at compile, then collected, failing, or never done), crash_run (SIGSEGV),
run_oom (XLA's RESOURCE_EXHAUSTED from a run; with FAKE_OOM_ONCE=path only while that file does
not exist, which the failing run creates), interrupt_run (SIGINT to the
harness, then hangs), run_raises, run_dtype (float64 output), run_wrong, nondeterministic (the
second output differs), time_wrong (the timed output differs).

The fake task: inputs x and y, float32 (4, 4), domain real; output 2 x + y. The reference writes
the inputs and the output into the request's dir; the executor reads the inputs and computes the
output itself (the harness unlinks the reference output before any run).

Other environment variables: FAKE_LOG, a file each request is appended to as a JSON line (role,
pid, task, cmd, the request; for the reference, records_lines: how many lines FAKE_RECORDS holds
then; for the executor's run, reference_visible: whether the reference output is still on disk);
FAKE_KERNEL_US and FAKE_REFERENCE_US, the timing samples' value (default 100 and 200);
FAKE_DEVICE_LIMIT, the executor's device memory limit its compile reports (`memory.device_limit`). Each log
line also says the process's CUDA_VISIBLE_DEVICES (`visible`) and when it was written (`t`).
"""
import json
import os
import signal
import struct
import sys
import time

ROLE = os.environ.get("PALLASBENCH_ROLE", "")
HERE = os.path.dirname(os.path.abspath(__file__))
SHAPE = (4, 4)
INPUTS = ("x", "y")
STRESS_CASES = ("offset",)

# The module a honest load hands over: one Pallas custom call from the input to the output.
STABLEHLO = """module @jit_kernel {
  func.func public @main(%arg0: tensor<4x4xf32>, %arg1: tensor<4x4xf32>) -> (tensor<4x4xf32>) {
    %0 = stablehlo.custom_call @__gpu$xla.gpu.triton(%arg0, %arg1) {mhlo.backend_config = {name = "fake_kernel"}} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    return %0 : tensor<4x4xf32>
  }
}
"""
# The same with a host callback beside the kernel: refused before compiling.
FOREIGN_STABLEHLO = STABLEHLO.replace(
    "    return %0 : tensor<4x4xf32>",
    "    %1 = stablehlo.custom_call @xla_python_cpu_callback(%0) : (tensor<4x4xf32>) -> tensor<4x4xf32>\n"
    "    return %1 : tensor<4x4xf32>")


def scenario(name: str, task: str | None) -> bool:
    for entry in filter(None, (e.strip() for e in os.environ.get("FAKE_SCENARIO", "").split(","))):
        behaviour, _, only = entry.partition(":")
        if behaviour == name and (not only or only == task):
            return True
    return False


def log(task, req, **extra):
    path = os.environ.get("FAKE_LOG")
    if not path:
        return
    line = json.dumps({"role": ROLE, "pid": os.getpid(), "task": task, "cmd": req.get("cmd"), "req": req,
                       "visible": os.environ.get("CUDA_VISIBLE_DEVICES"), "t": time.time()} | extra)
    with open(path, "a") as f:
        f.write(line + "\n")


class Failure(Exception):
    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


# ---- NPY v1, float32 / float64 little-endian, C order ------------------------------------------

def write_npy(path, values, shape, dtype="float32"):
    code = {"float32": ("<f4", "<f"), "float64": ("<f8", "<d")}[dtype]
    dims = "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (code[0], dims)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"  # the whole preamble a multiple of 64
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(struct.pack("<%d%s" % (len(values), code[1][1]), *values))
    return {"path": path, "shape": list(shape), "dtype": dtype}


def read_npy(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        raise Failure("runtime_error", f"{path}: not a .npy file")
    (length,) = struct.unpack("<H", data[8:10])
    header = data[10:10 + length].decode("latin1")
    if "'<f4'" not in header:
        raise Failure("runtime_error", f"{path}: not float32: {header}")
    shape_text = header[header.index("(") + 1:header.index(")")]
    shape = tuple(int(d) for d in shape_text.replace(",", " ").split())
    count = 1
    for d in shape:
        count *= d
    return list(struct.unpack("<%df" % count, data[10 + length:10 + length + 4 * count])), shape


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


# ---- data ----------------------------------------------------------------------------------------

def splitmix(state):
    while True:
        state = (state + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        yield z ^ (z >> 31)


def uniform(seed, stream, count):
    """count float32-exact values in [-1, 1) from (seed, stream)."""
    rng = splitmix((seed * 1000003 + stream) & 0xFFFFFFFFFFFFFFFF)
    return [(next(rng) >> 40) / float(1 << 23) - 1.0 for _ in range(count)]


def compute(inputs):
    x, y = inputs
    return [f32(2.0 * a + b) for a, b in zip(x, y)]


# ---- roles ---------------------------------------------------------------------------------------

def task_entry(name):
    source = f"# the fake task '{name}'\ndef kernel(x, y):\n    return 2 * x + y\n"
    return {
        "name": name, "level": 1, "category": "fake", "path": os.path.join(HERE, "fake_roles.py"),
        "inputs": [{"name": n, "domain": "real"} for n in INPUTS],
        "shapes": {size: {n: list(SHAPE) for n in INPUTS} for size in ("small", "medium", "large")},
        "tolerance": {"atol": 1e-5, "rtol": 1e-5, "rel_norm": 1e-5},
        "uses_tf32": False, "order_dependent": False,
        "stress": {"run": list(STRESS_CASES), "skipped": {}},
        "integer_ops": False,
        "dtypes": {n: "float32" for n in INPUTS},
        "flops": {size: 32 for size in ("small", "medium", "large")},
        "bytes": {size: 192 for size in ("small", "medium", "large")},
        "kernel_sha256": "f" * 64, "sha256": "f" * 64, "kernel_source": source, "kernel_bundled_source": source,
        "kernel_encoding": "utf-8", "kernel_bytes": len(source),
        "reference_source": "def reference(x, y):\n    return 2 * x + y\n", "output_dtype": "float32",
        # The task at float32 only, as the reference's describe derives it (task/dtypes.py views).
        "views": {"float32": {"tolerance": {"atol": 1e-5, "rtol": 1e-5, "rel_norm": 1e-5},
                              "dtypes": {n: "float32" for n in INPUTS}, "output_dtype": "float32",
                              "bytes": {size: 192 for size in ("small", "medium", "large")}}},
    }


def timing_reply(req, sample_us):
    """Exactly the warm-up calls and samples the request asks for (docs/protocol.md, "time")."""
    return {"timer": "wall", "samples_us": [sample_us] * int(req["samples"]),
            "warmup_us": [sample_us] * int(req["warmup"])}


class Reference:
    def hello(self):
        return {"environment": {"backend": "cpu", "device_kind": "cpu", "python": sys.version.split()[0],
                                "jax": "fake", "jaxlib": "fake"},
                "python_paths": [HERE]}

    def task_of(self, req):
        return req.get("task")

    def cmd_describe(self, req):
        names = req.get("tasks") or os.environ.get("FAKE_TASKS", "fake").split(",")
        return {"tasks": [task_entry(n) for n in names], "errors": [], "candidates": {}, "git_sha": None}

    def cmd_device(self, req):
        return {"timer": "wall", "timer_error": "fake: no device timer"}

    def cmd_reference(self, req):
        task = req["task"]
        if scenario("die_reference", task):
            print("fake reference: dying during 'reference'", file=sys.stderr, flush=True)
            os._exit(3)
        count = SHAPE[0] * SHAPE[1]
        seed = int(req["seed"])
        inputs = [uniform(seed, i, count) for i in range(len(INPUTS))]
        if req.get("stress") is not None:
            inputs = [[v + 1000.0 for v in values] for values in inputs]
        if req.get("perturb") is not None:
            index = int(req["perturb"])
            noise = uniform(seed, 7919 + index, count)
            inputs[index] = [f32(v + 0.1 * n) for v, n in zip(inputs[index], noise)]
        inputs = [[f32(v) for v in values] for values in inputs]
        out_dir = req["dir"]
        if req.get("platform"):  # "XLA at the class": the reference itself, so its error is 0
            return {"inputs": [], "output": write_npy(os.path.join(out_dir, "platform.npy"), compute(inputs), SHAPE)}
        written = [write_npy(os.path.join(out_dir, f"in_{n}.npy"), values, SHAPE) | {"name": n}
                   for n, values in zip(INPUTS, inputs)]
        if req.get("inputs_only"):  # the real reference keeps them for the output request; these are cheap
            return {"inputs": written}
        output = write_npy(os.path.join(out_dir, "ref.npy"), compute(inputs), SHAPE)
        reply = {"inputs": written, "output": output}
        if req.get("stress") is not None:
            reply["large_factor"] = 1000.0  # as the real reference says its large case's factor
        return reply

    def cmd_time_reference(self, req):
        return timing_reply(req, float(os.environ.get("FAKE_REFERENCE_US", "200")))


class Tracer:
    def hello(self):
        return {}

    def task_of(self, req):
        candidate = req.get("candidate", {})
        if "task" in candidate:
            return candidate["task"]
        for line in candidate.get("source", "").splitlines():  # a user candidate names its task so
            if line.startswith("# task: "):
                return line[len("# task: "):].strip()
        return None

    def cmd_trace(self, req):
        task = self.task_of(req)
        if scenario("trace_compile_error", task):
            print("fake tracer: the candidate does not trace", file=sys.stderr, flush=True)
            raise Failure("compile_error", "tracing or exporting 'kernel' failed: ValueError: fake trace failure")
        if scenario("trace_hang", task):
            time.sleep(600)
        module = "fake-module:" + json.dumps({"task": task, "inputs": req["inputs"]})
        outputs = [{"shape": list(SHAPE), "dtype": "float32"}]
        return {
            "module": module,
            "analysis_module": None,
            "jaxpr": "{ lambda ; a:f32[4,4] b:f32[4,4]. let c:f32[4,4] = pallas_call a b in (c,) }",
            "pallas_calls": [{"name": "fake_kernel", "grid": [1], "block_shapes": [[4, 4], [4, 4], [4, 4]],
                              "memory_spaces": ["default"] * 3, "array_shapes": [[4, 4]] * 3}],
            "jaxpr_dag": {"nodes": [
                {"id": 0, "primitive": "input", "params": "", "outputs": outputs, "inside_pallas": False,
                 "parent": None},
                {"id": 1, "primitive": "pallas_call", "params": "", "outputs": outputs, "inside_pallas": False,
                 "parent": None, "grid": [1], "block_shapes": [[4, 4]]},
                {"id": 2, "primitive": "output", "params": "", "outputs": outputs, "inside_pallas": False,
                 "parent": None}],
                "edges": [{"from": 0, "to": 1}, {"from": 1, "to": 2}]},
            "task_modules_loaded": [],
            "trace_s": 0.001,
            "interpret_export_s": None,
        }


class Executor:
    def __init__(self):
        self.loaded = None  # the module's {"task", "inputs"}
        self.compiled = None
        self.capture = None  # the compile's artifacts while their capture is pending

    def hello(self):
        return {"environment": {"backend": "cpu", "device_kind": "cpu"}}

    def task_of(self, req):
        if req.get("cmd") == "load":
            try:
                return json.loads(req["module"].split(":", 1)[1]).get("task")
            except (ValueError, IndexError, AttributeError):
                return None
        return (self.compiled or self.loaded or {}).get("task")

    def cmd_load(self, req):
        module = req.get("module", "")
        if not isinstance(module, str) or not module.startswith("fake-module:"):
            raise Failure("compile_error", "the tracer's module cannot be deserialized")
        loaded = json.loads(module.split(":", 1)[1])
        task = loaded.get("task")
        if scenario("hang_load", task):
            time.sleep(600)
        self.loaded, self.compiled, self.capture = loaded, None, None
        kernels = []
        if scenario("kernel_ir", task):
            with open(os.path.join(HERE, "..", "fixtures", "stablehlo", "relu.kernel0.mlir")) as f:
                kernels = [{"target": "__gpu$xla.gpu.triton", "name": "fake_kernel", "ir": f.read()}]
        text = FOREIGN_STABLEHLO if scenario("foreign_call", task) else STABLEHLO
        return {"stablehlo": text, "platforms": ["cpu"], "kernels": kernels,
                "output": {"shape": list(SHAPE), "dtype": "float32"}}

    def cmd_compile(self, req):
        if self.loaded is None:
            raise Failure("usage_error", "compile before load")
        task = self.loaded.get("task")
        self.compiled, self.loaded = self.loaded, None
        wanted = req.get("artifacts") or {}
        mode = wanted.get("mode", "none")
        if mode == "none":
            artifacts = {"mode": mode}
        elif any(scenario(name, task) for name in ("artifacts_fail", "artifacts_ok", "artifacts_hang")):
            artifacts = {"mode": mode, "dir": wanted["dir"], "triton": [], "kernel_names": ["fake_kernel"],
                         "unavailable": {}, "capture_s": 0.0}
            self.capture = artifacts
            artifacts = artifacts | {"capture_pending": True}
        else:
            artifacts = {"mode": mode, "artifacts_unavailable": "cpu interpret mode"}
        memory = {"argument": 128, "output": 64, "temp": 0}
        if os.environ.get("FAKE_DEVICE_LIMIT"):
            memory["device_limit"] = int(os.environ["FAKE_DEVICE_LIMIT"])
        return {"lower_s": 0.001, "compile_s": 0.002, "memory": memory, "artifacts": artifacts}

    def cmd_artifacts(self, req):
        base, self.capture = self.capture, None
        if base is None:
            return {"artifacts": None}
        if scenario("artifacts_hang", self.compiled.get("task")):
            time.sleep(600)
        if scenario("artifacts_fail", self.compiled.get("task")):
            raise Failure("runtime_error", "CalledProcessError: fake ptxas exited with 1")
        with open(os.path.join(base["dir"], "kernel.ptx"), "w") as f:
            f.write("// fake PTX\n.version 8.0\n.target sm_90\n")
        return {"artifacts": base | {"ptx": "kernel.ptx", "wait_s": 0.0}}

    def outputs_for(self, inputs_paths):
        inputs = [read_npy(p)[0] for p in inputs_paths]
        return compute(inputs)

    def cmd_run(self, req):
        if self.compiled is None:
            raise Failure("usage_error", "run before compile")
        task = self.compiled.get("task")
        if scenario("crash_run", task):
            print("fake executor: segfault in the kernel", file=sys.stderr, flush=True)
            os.kill(os.getpid(), signal.SIGSEGV)
        if scenario("interrupt_run", task):
            os.kill(os.getppid(), signal.SIGINT)  # Ctrl-C reaches the harness while it waits on us
            time.sleep(600)
        if scenario("run_oom", task) and not os.path.exists(os.environ.get("FAKE_OOM_ONCE", "/nonexistent")):
            if os.environ.get("FAKE_OOM_ONCE"):
                open(os.environ["FAKE_OOM_ONCE"], "w").close()
            raise Failure("runtime_error", "the kernel raised: JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory "
                          "while trying to allocate 1073741824 bytes.")
        if scenario("run_raises", task):
            raise Failure("runtime_error", "the kernel raised: RuntimeError: fake kernel failure")
        out = self.outputs_for(req["inputs"])
        replies = []
        for index, path in enumerate(req["outputs"]):
            if scenario("run_dtype", task):
                replies.append(write_npy(path, out, SHAPE, "float64"))
                continue
            values = out
            if scenario("run_wrong", task):
                values = [v + 1.0 for v in out]
            if scenario("nondeterministic", task) and index == 1:
                values = [f32(v + 1e-3) for v in out]
            replies.append(write_npy(path, values, SHAPE))
        return {"outputs": replies}

    def cmd_time(self, req):
        if self.compiled is None:
            raise Failure("usage_error", "time before compile")
        task = self.compiled.get("task")
        if req.get("output"):
            out = self.outputs_for(req["inputs"])
            if scenario("time_wrong", task):
                out = [v + 1.0 for v in out]
            write_npy(req["output"], out, SHAPE)
        return timing_reply(req, float(os.environ.get("FAKE_KERNEL_US", "100"))) | {"peak_bytes": 4096}


def main():
    roles = {"reference": Reference, "tracer": Tracer, "executor": Executor}
    if ROLE not in roles:
        print(json.dumps({"ready": False, "error": {"kind": "no_backend",
                                                    "message": f"fake_roles: PALLASBENCH_ROLE is '{ROLE}'"}}),
              flush=True)
        return 1
    handler = roles[ROLE]()
    print(json.dumps({"ready": True, "pid": os.getpid(), "role": ROLE} | handler.hello()), flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        cmd = req.get("cmd")
        if cmd == "shutdown":
            print(json.dumps({"id": req.get("id"), "ok": True, "bye": True}), flush=True)
            break
        task = handler.task_of(req)
        extra = {}
        if ROLE == "executor" and cmd == "run" and req.get("inputs"):
            # The harness unlinks the reference output before any run: the executor must not find it.
            extra["reference_visible"] = os.path.exists(os.path.join(os.path.dirname(req["inputs"][0]), "ref.npy"))
        if ROLE == "reference" and os.environ.get("FAKE_RECORDS"):
            try:
                with open(os.environ["FAKE_RECORDS"]) as f:
                    extra["records_lines"] = sum(1 for _ in f)
            except FileNotFoundError:
                extra["records_lines"] = 0
        log(task, req, **extra)
        method = getattr(handler, f"cmd_{cmd}", None)
        try:
            if method is None:
                raise Failure("usage_error", f"unknown command {cmd!r}")
            reply = {"id": req.get("id"), "ok": True} | method(req)
        except Failure as exc:
            reply = {"id": req.get("id"), "ok": False,
                     "error": {"kind": exc.kind, "message": str(exc), "traceback": f"Traceback (fake {ROLE})"}}
        print(json.dumps(reply), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
