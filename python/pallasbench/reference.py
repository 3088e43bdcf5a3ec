"""The reference process (trusted): `python -m pallasbench.reference`.

It describes the suite, makes each seed's inputs and the reference output, times the XLA
baseline and measures the device's roofline ceilings. It never imports candidate code, and no
candidate kernel ever runs in it; its reference outputs never exist in the executor's process or
CUDA context (docs/architecture.md).
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import io
import os
import re
import subprocess
import sys
import tokenize
from pathlib import Path

import numpy as np

from pallasbench import ceilings, interpret, protocol, sampling
from pallasbench import task as tl
from pallasbench.protocol import CommandError
from pallasbench.task import registry, stress


def environment() -> dict:
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
    try:
        text = subprocess.run(["nvidia-smi"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    driver = re.search(r"Driver Version:\s*([\d.]+)", text)
    cuda = re.search(r"CUDA Version:\s*([\d.]+)", text)
    return {"driver": driver.group(1) if driver else None, "cuda": cuda.group(1) if cuda else None}


def python_paths() -> list[str]:
    """The folders this interpreter imports from: a sandboxed tracer is given read access to
    exactly these (and the system's library folders)."""
    folders = [p for p in sys.path if p] + [sys.prefix, sys.base_prefix, sys.exec_prefix,
                                            str(Path(os.path.realpath(sys.executable)).parent)]
    return sorted({str(Path(p).resolve()) for p in folders if Path(p).is_dir()})


def _git_sha(root: Path) -> str | None:
    head = root / ".git" / "HEAD"
    try:
        ref = head.read_text().strip()
        if ref.startswith("ref: "):
            return (root / ".git" / ref[5:]).read_text().strip()
        return ref
    except OSError:
        return None


def _kernels_dir() -> Path:
    """The folder of the pallasbench.kernels package, found from the package itself."""
    import pallasbench.kernels

    return Path(pallasbench.kernels.__file__).parent


def _kernel_imports(source: str, inside_kernels: bool = False) -> set[str]:
    """The pallasbench.kernels.* modules one source imports, read from its syntax tree
    (inside_kernels: the source is one of them, so its relative imports name them too)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            if inside_kernels and node.level == 1:
                names |= {node.module.split(".")[0]} if node.module else {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "pallasbench.kernels":
                names |= {a.name for a in node.names}
            elif node.module.startswith("pallasbench.kernels."):
                names.add(node.module.split(".")[2])
        elif isinstance(node, ast.Import):
            names |= {a.name.split(".")[2] for a in node.names if a.name.startswith("pallasbench.kernels.")}
    return names


def kernel_modules_used(source: str) -> list[str]:
    """The shared kernel modules (pallasbench.kernels.*) a source runs: those it imports and,
    transitively, those they import; sorted by name, each once. Read from syntax trees:
    nothing of it runs here."""
    kernels = _kernels_dir()
    found: set[str] = set()
    pending = _kernel_imports(source)
    while pending:
        name = pending.pop()
        path = kernels / f"{name}.py"
        if name in found or not path.is_file():
            continue
        found.add(name)
        pending |= _kernel_imports(path.read_text(), inside_kernels=True)
    return sorted(found)


def bundled_source(source: str) -> str:
    """The kernel file followed by every shared kernel module it runs (kernel_modules_used), so
    a record's triton_code holds every line of the kernel."""
    kernels = _kernels_dir()
    parts = [source]
    for name in kernel_modules_used(source):
        parts.append(f"\n# ---- pallasbench.kernels.{name} ----\n" + (kernels / f"{name}.py").read_text())
    return "".join(parts)


DEFAULT_MAX_SOURCE_BYTES = 1 << 20


def decode_source(data: bytes) -> tuple[str, str]:
    """(text, encoding) as Python itself decodes a source file: a BOM or a PEP 263 coding line,
    else UTF-8. Raises SyntaxError (as Python would) when the bytes do not decode."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    try:
        return data.decode(encoding), encoding  # no newline translation: the text is the file
    except (UnicodeDecodeError, LookupError) as exc:
        raise SyntaxError(f"the source does not decode as {encoding} (its declared or default encoding): {exc}")


def source_facts(path: Path, max_bytes: int = DEFAULT_MAX_SOURCE_BYTES) -> dict:
    """What the record says of a kernel file, read by this trusted process (never by the
    process that imports it: a candidate can spoof its own __file__). A file over max_bytes
    is refused unread, one that does not decode is refused as Python would refuse it; either
    way "refused" says why and nothing of it runs."""
    size = path.stat().st_size
    if size > max_bytes:
        with open(path, "rb") as f:  # hashed in blocks, never held whole
            sha256 = hashlib.file_digest(f, "sha256").hexdigest()
        return {"sha256": sha256, "source": "", "bundled_source": "", "encoding": "", "bytes": size,
                "refused": f"{path.name} is {size} bytes, over the limit of {max_bytes} (--max-source-bytes): "
                           f"refused unread"}
    data = path.read_bytes()
    facts = {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
    try:
        text, encoding = decode_source(data)
    except SyntaxError as exc:
        text = data.decode("utf-8", errors="replace")
        return facts | {"source": text, "bundled_source": text, "encoding": "",
                        "refused": f"{path.name}: {exc}"}
    return facts | {"source": text, "bundled_source": bundled_source(text), "encoding": encoding}


def _output_dtype(module, info: dict) -> str:
    """The reference's output dtype, from the shapes and dtypes describe already holds."""
    import jax

    small = info["shapes"]["small"]
    avals = [jax.ShapeDtypeStruct(tuple(small[i.name]), np.dtype(info["dtypes"][i.name])) for i in module.INPUTS]
    return str(jax.eval_shape(module.reference, *avals).dtype)


class Reference:
    def __init__(self):
        self.reference_fns: dict = {}
        self._inputs_key, self._inputs = None, ()
        self._sampler = sampling.Sampler()
        self._device_inputs = sampling.DeviceInputs()

    def cmd_describe(self, req):
        names = req.get("tasks") or sorted(registry.discover())
        tasks, errors = [], []
        for name in names:
            try:
                module = registry.load(name)
                info = registry.describe(module)
                info |= {f"kernel_{k}": v for k, v in source_facts(Path(module.__file__)).items()}
                info["sha256"] = info["kernel_sha256"]
                info["reference_source"] = inspect.getsource(module.reference)
                info["output_dtype"] = _output_dtype(module, info)
                tasks.append(info)
            except Exception as exc:  # one broken task file must not hide the others
                errors.append({"name": name, "error": f"{type(exc).__name__}: {exc}"})
        candidates = {}
        for path in req.get("candidate_files") or []:
            candidates[path] = source_facts(Path(path), int(req.get("max_source_bytes") or DEFAULT_MAX_SOURCE_BYTES))
        return {"tasks": tasks, "errors": errors, "candidates": candidates,
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
        """Fresh inputs for one seed (one input perturbed, or a stress case's, when asked) and
        the reference output."""
        self._device_inputs.drop()
        module = registry.load(req["task"])
        shapes = module.SHAPES[req["size"]]
        case = req.get("stress")
        if case is not None:
            try:
                inputs = stress.make_inputs(module, case, np.random.default_rng(req["seed"]), shapes)
            except ValueError as exc:
                raise CommandError("task_error", str(exc)) from exc
        else:
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
            written.append(sampling.save(str(out_dir / f"in_{spec.name}.npy"), array) | {"name": spec.name})
        try:
            ref = self._run_reference(module, inputs, float64=case is not None)
        except Exception as exc:
            raise CommandError("task_error", f"reference of '{module.NAME}' failed: {exc}") from exc
        return {"inputs": written, "output": sampling.save(str(out_dir / "ref.npy"), ref)}

    def _run_reference(self, module, inputs, float64: bool = False):
        """The correctness reference: f32 at full matmul precision, or float64 when the task
        declares REFERENCE_FLOAT64 (long f32 sums whose own rounding error is of the order of
        the tolerance) and for every stress case (an offset of 1e3 or a scale of 1e3 puts the
        f32 reference's own rounding above the tolerance), rounded back to the f32 reference's
        dtype."""
        import jax

        if not (float64 or getattr(module, "REFERENCE_FLOAT64", False)):
            return jax.block_until_ready(self._reference_fn(module, "highest")(*inputs))
        out_dtype = jax.eval_shape(module.reference, *inputs).dtype
        wide = [x.astype(np.float64) if np.issubdtype(x.dtype, np.floating) else x for x in inputs]
        with jax.enable_x64(True):
            ref = np.asarray(self._reference_fn(module, "float64")(*wide))
        return ref.astype(out_dtype)

    def cmd_time_reference(self, req):
        """Timing samples of the XLA reference at the given matmul precision."""
        module = registry.load(req["task"])
        fn = self._reference_fn(module, req.get("precision", "highest"))
        reply = self._sampler.timed(fn, self._device_inputs.get(req["inputs"]), req)
        self._sampler.last_output = None  # the baseline's output is never checked
        return reply

    def cmd_device(self, req):
        """The device timer's view of the GPU (L2 size, SM clocks, throttle reasons) and, when
        asked, the device's ceilings for the roofline (measured once per run)."""
        timer, error = self._sampler.device_timer()
        if timer is None:
            return {"timer": "wall", "timer_error": error}
        reply = {"timer": "cupti", "device": timer.device}
        if req.get("ceilings"):
            reply["ceilings"] = ceilings.measure(timer)
        return reply


def backend_failure(exc: BaseException) -> str:
    """Why JAX could not start its backend, in words a user can act on (jax 0.10 says only
    "AssertionError" when JAX_PLATFORMS=cuda finds no CUDA plugin)."""
    import importlib.metadata

    reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    platforms = os.environ.get("JAX_PLATFORMS", "")
    plugins = sorted({d.metadata["Name"] for d in importlib.metadata.distributions()
                      if (d.metadata["Name"] or "").lower().replace("_", "-").startswith("jax-cuda")})
    if "cuda" in platforms and not plugins:
        reason += " (no JAX CUDA plugin is installed: jax-cuda12-plugin or jax-cuda13-plugin)"
    elif "cuda" in platforms:
        reason += f" (installed: {', '.join(plugins)}; is a GPU visible, is the driver loaded?)"
    return f"JAX_PLATFORMS={platforms}: {reason}" if platforms else reason


def main() -> int:
    out = protocol.claim_stdout()
    try:
        if interpret.on_cpu():
            interpret.enable_interpret_default()  # tasks import pallas kernels; they never run here
        env = environment()
    except Exception as exc:  # the greeting says why, for the harness to tell the user
        out.write(protocol.encode_reply({"ready": False, "error": {"kind": "no_backend",
                                                                    "message": backend_failure(exc)}}) + "\n")
        return 1
    return protocol.serve(Reference(), out, {"environment": env, "python_paths": python_paths()})


if __name__ == "__main__":
    sys.exit(main())
