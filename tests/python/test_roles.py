"""The three processes' side of the protocol, spoken directly over pipes (no sandbox: the
sandbox is the C++ side's, tests/orchestrate/test_sandbox.cpp)."""
from pathlib import Path

import numpy as np
import pytest

from worker_process import Process


@pytest.fixture(scope="module")
def reference():
    p = Process("reference")
    yield p
    p.close()


@pytest.fixture(scope="module")
def executor():
    p = Process("executor")
    yield p
    p.close()


def trace(candidate: dict, specs: list, cwd: Path) -> dict:
    tracer = Process("tracer", cwd=cwd)
    try:
        return tracer.call(cmd="trace", candidate=candidate, inputs=specs, platform="cpu")
    finally:
        tracer.proc.kill()
        tracer.proc.wait()


def specs_of(reply) -> list:
    return [{"shape": i["shape"], "dtype": i["dtype"]} for i in reply["inputs"]]


def test_reference_greets_with_environment_and_import_folders(reference):
    assert reference.hello["ready"] is True
    env = reference.hello["environment"]
    assert env["backend"] == "cpu" and env["jax"] and env["jaxlib"]
    assert any(Path(p, "jax").is_dir() for p in reference.hello["python_paths"])


def test_describe_reads_sources_itself(reference, tmp_path):
    candidate = tmp_path / "cand.py"
    candidate.write_text("from pallasbench.kernels import tiled_matmul\ndef kernel(x):\n    return x\n")
    described = reference.call(cmd="describe", tasks=["relu"], candidate_files=[str(candidate)],
                               max_source_bytes=1 << 20)
    assert described["ok"]
    task = described["tasks"][0]
    assert task["name"] == "relu" and len(task["sha256"]) == 64 and task["output_dtype"] == "float32"
    assert "def kernel" in task["kernel_source"] and "def reference" in task["reference_source"]
    facts = described["candidates"][str(candidate)]
    assert facts["source"] == candidate.read_text() and len(facts["sha256"]) == 64
    assert "# ---- pallasbench.kernels.tiled_matmul ----" in facts["bundled_source"]
    assert "# ---- pallasbench.kernels.masked ----" in facts["bundled_source"]  # tiled_matmul imports it


def test_reference_inputs_are_reproducible(reference, tmp_path):
    reply = reference.call(cmd="reference", task="relu", size="small", seed=4, dir=str(tmp_path))
    assert reply["ok"], reply
    x = np.load(reply["inputs"][0]["path"])
    np.testing.assert_array_equal(np.load(reply["output"]["path"]), np.maximum(x, 0))
    again = reference.call(cmd="reference", task="relu", size="small", seed=4, dir=str(tmp_path / ".."))
    np.testing.assert_array_equal(np.load(again["inputs"][0]["path"]), x)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_at_a_low_precision_inputs_and_reference_are_rounded(reference, executor, dtype, tmp_path):
    import ml_dtypes

    wide = reference.call(cmd="reference", task="softmax", size="small", seed=3, dir=str(tmp_path))
    low = reference.call(cmd="reference", task="softmax", size="small", seed=3, dir=str(tmp_path / ".."), dtype=dtype)
    assert low["ok"], low
    assert low["inputs"][0]["dtype"] == dtype and low["output"]["dtype"] == dtype
    target = ml_dtypes.bfloat16 if dtype == "bfloat16" else np.float16
    x32 = np.load(wide["inputs"][0]["path"])
    x = np.load(low["inputs"][0]["path"])  # float32 on disk, holding the dtype's values
    np.testing.assert_array_equal(x, x32.astype(target).astype(np.float32))
    assert not np.array_equal(x, x32)
    # The reference in float32 on the rounded inputs, rounded to the dtype.
    e = np.exp(x.astype(np.float64) - x.max(axis=-1, keepdims=True))
    expected = (e / e.sum(axis=-1, keepdims=True)).astype(np.float32).astype(target).astype(np.float32)
    got = np.load(low["output"]["path"])
    assert np.array_equal(got, got.astype(target).astype(np.float32))  # exactly the dtype's values
    assert np.abs(got - expected).max() <= np.spacing(target(1.0)).astype(np.float32)  # within one rounding
    timed = reference.call(cmd="time_reference", inputs=[i["path"] for i in low["inputs"]], task="softmax",
                           precision="default", dtype=dtype, warmup=1, samples=2, max_seconds=5)
    assert timed["ok"], timed


def test_trace_load_compile_run(reference, executor, tmp_path):
    ref = reference.call(cmd="reference", task="add", size="small", seed=0, dir=str(tmp_path))
    traced = trace({"task": "add"}, specs_of(ref), tmp_path)
    assert traced["ok"], traced
    assert "pallas_call" in traced["jaxpr"] and traced["pallas_calls"][0]["grid"]
    assert traced["module"] and traced["analysis_module"]  # CPU: the interpret module and the CUDA one
    loaded = executor.call(cmd="load", module=traced["module"], analysis_module=traced["analysis_module"],
                           inputs=specs_of(ref))
    assert loaded["ok"], loaded
    assert "__gpu$xla.gpu.triton" in loaded["analysis_stablehlo"] and "__gpu$xla.gpu.triton" not in loaded["stablehlo"]
    assert loaded["kernels"] and "tt.func" in loaded["kernels"][0]["ir"]
    assert loaded["main_inputs"] == [0, 1]  # @main takes x and y (the data-movement rule names them)
    compiled = executor.call(cmd="compile", artifacts={"mode": "files", "dir": str(tmp_path / "c")})
    assert compiled["ok"] and compiled["compile_s"] > 0
    assert compiled["artifacts"] == {"mode": "files", "artifacts_unavailable": "cpu interpret mode"}
    outs = [str(tmp_path / "a.npy"), str(tmp_path / "b.npy")]
    ran = executor.call(cmd="run", inputs=[i["path"] for i in ref["inputs"]], outputs=outs)
    assert ran["ok"], ran
    np.testing.assert_array_equal(np.load(outs[0]), np.load(ref["output"]["path"]))
    timed = executor.call(cmd="time", inputs=[i["path"] for i in ref["inputs"]], warmup=2, samples=3, max_seconds=5)
    assert timed["ok"] and timed["timer"] == "wall" and len(timed["samples_us"]) == 3
    assert len(timed["warmup_us"]) == 2 and all(t > 0 for t in timed["warmup_us"])


def test_the_user_source_is_what_gets_traced(tmp_path):
    source = "import jax\n\n\ndef kernel(x):\n    return x * 2\n"
    traced = trace({"source": source, "name": "mine.py"}, [{"shape": [8, 8], "dtype": "float32"}], tmp_path)
    assert traced["ok"], traced
    assert (tmp_path / "candidate.py").read_text() == source  # written into its own folder


def test_a_tracer_traces_once(tmp_path):
    tracer = Process("tracer", cwd=tmp_path)
    try:
        first = tracer.call(cmd="trace", candidate={"task": "relu"}, inputs=[{"shape": [512, 512], "dtype": "float32"}],
                            platform="cpu")
        again = tracer.call(cmd="trace", candidate={"task": "relu"}, inputs=[{"shape": [512, 512], "dtype": "float32"}],
                            platform="cpu")
    finally:
        tracer.proc.kill()
        tracer.proc.wait()
    assert first["ok"] and not again["ok"] and "thrown away" in again["error"]["message"]


def test_executor_refuses_what_does_not_fit(executor, tmp_path):
    bad = executor.call(cmd="load", module="bm90IGEgbW9kdWxl", inputs=[])
    assert not bad["ok"] and "cannot be deserialized" in bad["error"]["message"]
    traced = trace({"task": "relu"}, [{"shape": [512, 512], "dtype": "float32"}], tmp_path)
    wrong = executor.call(cmd="load", module=traced["module"], inputs=[{"shape": [256, 256], "dtype": "float32"}])
    assert not wrong["ok"] and "the task's inputs are" in wrong["error"]["message"]
    early = executor.call(cmd="run", inputs=[], outputs=[])
    assert not early["ok"] and "run before compile" in early["error"]["message"]


def test_errors_are_replies_not_crashes(reference):
    unknown = reference.call(cmd="frobnicate")
    assert not unknown["ok"] and unknown["error"]["kind"] == "usage_error"
    assert "the reference has no command 'frobnicate'" in unknown["error"]["message"]
    mistyped = reference.call(cmd="reference", task="relu", size="small", seed="0", dir="/tmp")
    assert not mistyped["ok"] and mistyped["error"]["kind"] == "usage_error"
    assert "reference: field 'seed' must be an integer, got string" in mistyped["error"]["message"]
    missing = reference.call(cmd="reference", task="no_such_task", size="small", seed=0, dir="/tmp")
    assert not missing["ok"] and "unknown task 'no_such_task'" in missing["error"]["message"]
    # The traceback is the failure's own, naming where it was raised (never "NoneType: None").
    trace = missing["error"]["traceback"]
    assert "Traceback (most recent call last)" in trace and "registry.py" in trace and "TaskError" in trace


def test_device_on_cpu_is_wall_clock(reference):
    device = reference.call(cmd="device")
    assert device["ok"] and device["timer"] == "wall" and device["timer_error"] is None


def test_a_role_answers_its_own_commands_only(reference, executor, tmp_path):
    for process, role, foreign in ((reference, "reference", "load"), (executor, "executor", "time_reference")):
        assert process.hello["role"] == role
        reply = process.call(cmd=foreign)
        assert not reply["ok"] and reply["error"]["kind"] == "usage_error"
        assert f"the {role} does not answer '{foreign}'" in reply["error"]["message"]
    tracer = Process("tracer", cwd=tmp_path)
    try:
        assert tracer.hello["role"] == "tracer"
        for foreign in ("describe", "run", "time"):
            reply = tracer.call(cmd=foreign)
            assert not reply["ok"] and f"the tracer does not answer '{foreign}'" in reply["error"]["message"]
        traced = tracer.call(cmd="trace", candidate={"task": "relu"},
                             inputs=[{"shape": [512, 512], "dtype": "float32"}], platform="cpu")
        assert traced["ok"], traced  # a refused command used up nothing
    finally:
        tracer.proc.kill()
        tracer.proc.wait()


def test_the_xla_baseline_is_timed_with_the_counts_asked(reference, tmp_path):
    ref = reference.call(cmd="reference", task="relu", size="small", seed=1, dir=str(tmp_path))
    timed = reference.call(cmd="time_reference", inputs=[i["path"] for i in ref["inputs"]], task="relu",
                           precision="highest", warmup=3, samples=4, max_seconds=30)
    assert timed["ok"], timed
    assert timed["timer"] == "wall" and len(timed["samples_us"]) == 4 and len(timed["warmup_us"]) == 3
    stale = reference.call(cmd="time_reference", inputs=[i["path"] for i in ref["inputs"]], task="relu",
                           precision="highest", warmup=0, min_samples=4, max_samples=4, max_seconds=30)
    assert not stale["ok"] and "time_reference: field" in stale["error"]["message"]
