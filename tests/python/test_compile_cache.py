"""--compile-cache: JAX's persistent compilation cache in the trusted executor, on the CPU with
Pallas interpret-mode modules (jax 0.10.2): off by default, a fresh folder misses and is written,
a second process hits on the same module and misses on another, and the artifact capture's
compile neither reads nor writes an entry."""
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from worker_process import ENV, Process


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    """The interpret-mode modules the suite tracer exports for relu and add (SMALL), with their inputs."""
    work = tmp_path_factory.mktemp("trace")
    tracer = Process("tracer", "--suite", cwd=work)
    try:
        traced = {}
        for task, specs in {"relu": [[512, 512]], "add": [[512, 512], [512, 512]]}.items():
            inputs = [{"shape": s, "dtype": "float32"} for s in specs]
            reply = tracer.call(cmd="trace", candidate={"task": task}, inputs=inputs, platform="cpu")
            assert reply["ok"], reply
            traced[task] = (reply["module"], inputs)
        return traced
    finally:
        tracer.proc.kill()
        tracer.proc.wait()


def compile_module(executor: Process, module_and_inputs) -> dict:
    module, inputs = module_and_inputs
    loaded = executor.call(cmd="load", module=module, inputs=inputs)
    assert loaded["ok"], loaded
    compiled = executor.call(cmd="compile", artifacts={"mode": "none"})
    assert compiled["ok"], compiled
    return compiled


def entries(folder: Path) -> set[str]:
    """The cache's entries of candidate modules (`jax.jit(exported.call)`: jit_call-<key>-cache);
    the executor's own warm-up jits (jit_broadcast_in_dim, ...) are cached beside them."""
    return {p.name for p in folder.iterdir() if p.name.startswith("jit_call-") and p.name.endswith("-cache")}


def test_without_the_flag_no_cache_is_used(modules):
    executor = Process("executor")
    try:
        compiled = compile_module(executor, modules["relu"])
    finally:
        executor.close()
    assert compiled["cache"] == {"enabled": False, "hit": None}


def test_a_second_process_hits_on_the_same_module_and_misses_on_another(modules, tmp_path):
    folder = tmp_path / "cache"  # created by the executor
    first = Process("executor", "--compile-cache", str(folder))
    try:
        cold = compile_module(first, modules["relu"])
    finally:
        first.close()
    assert cold["cache"] == {"enabled": True, "hit": False}
    written = entries(folder)
    assert len(written) == 1, sorted(folder.iterdir())

    x = np.random.default_rng(0).standard_normal((512, 512), dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    second = Process("executor", "--compile-cache", str(folder))
    try:
        warm = compile_module(second, modules["relu"])
        ran = second.call(cmd="run", inputs=[str(tmp_path / "x.npy")], outputs=[str(tmp_path / "out.npy")])
        other = compile_module(second, modules["add"])
    finally:
        second.close()
    assert warm["cache"] == {"enabled": True, "hit": True}
    assert ran["ok"], ran
    np.testing.assert_array_equal(np.load(tmp_path / "out.npy"), np.maximum(x, 0))  # the loaded executable runs
    assert other["cache"] == {"enabled": True, "hit": False}
    assert written < entries(folder) and len(entries(folder)) == 2
    # A hit deserializes instead of compiling: on the CPU the interpret module's compile takes
    # ~0.1-0.3 s cold; the loaded one is faster.
    assert warm["compile_s"] < cold["compile_s"]


CAPTURE = textwrap.dedent("""
    import base64, json, sys
    from pathlib import Path
    import jax
    from pallasbench.worker import compile_cache, compiler_artifacts
    compile_cache.enable(sys.argv[1])
    module, inputs = json.loads(Path(sys.argv[2]).read_text())
    exported = jax.export.deserialize(bytearray(base64.b64decode(module)))
    avals = [jax.ShapeDtypeStruct(tuple(i["shape"]), i["dtype"]) for i in inputs]
    lowered = jax.jit(exported.call).lower(*avals)
    with compile_cache.watch() as main:
        lowered.compile()
    job = compiler_artifacts.CaptureJob(lowered, [], Path(sys.argv[3]), False)
    print(json.dumps({"main": main, "capture": job.finish()}))
""")


def capture_in_fresh_process(folder: Path, module_file: Path, out: Path) -> dict:
    result = subprocess.run([sys.executable, "-c", CAPTURE, str(folder), str(module_file), str(out)], env=ENV,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def plain_module() -> tuple:
    """An exported module of plain XLA ops (2 x + y), serialized as a tracer hands modules over.

    Not the interpret-mode Pallas module: jaxlib 0.10.2's CPU compiler aborts now and then ("pure
    virtual method called", in backend_compile_and_load) when that scan-over-the-grid module is
    compiled with dump options in a thread, with or without the cache (1 run in 3 here). The
    capture never runs on the CPU in a real evaluation (no PTX there); what is tested is what the
    cache does to a capture compile, which any module shows."""
    import base64

    import jax
    import numpy as np

    avals = [jax.ShapeDtypeStruct((512, 512), np.float32)] * 2
    exported = jax.export.export(jax.jit(lambda x, y: 2 * x + y))(*avals)
    blob = base64.b64encode(bytes(exported.serialize())).decode()
    return blob, [{"shape": [512, 512], "dtype": "float32"}] * 2


def test_the_artifact_capture_compiles_for_real_with_a_warm_cache(tmp_path):
    """The capture compile (GPU: the PTX and thunk dump) must never be served from the cache,
    which would dump nothing. On the CPU the same compile with the same dump options runs; XLA's
    CPU dump holds no PTX, so `unavailable.ptx` lists the files it did dump."""
    folder, module_file = tmp_path / "cache", tmp_path / "module.json"
    module_file.write_text(json.dumps(plain_module()))
    first = capture_in_fresh_process(folder, module_file, tmp_path / "a")
    assert first["main"] == {"enabled": True, "hit": False}
    assert entries(folder) and len(entries(folder)) == 1  # the plain compile's entry only
    second = capture_in_fresh_process(folder, module_file, tmp_path / "b")
    assert second["main"] == {"enabled": True, "hit": True}
    for run in (first, second):
        message = run["capture"]["unavailable"]["ptx"]
        assert "persistent compilation cache" not in message and "capture compile failed" not in message
        assert message.startswith("no PTX with an entry") and "files: []" not in message, message
    assert len(entries(folder)) == 1  # the capture wrote no entry of its own
