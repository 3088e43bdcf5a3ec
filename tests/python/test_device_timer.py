"""The device timer's Python side and the compiler-artifact helpers, on a machine without a GPU."""
import numpy as np
import pytest

import jax

from pallasbench import compiler_artifacts, device_timer, interpret, registry


def test_missing_timer_library_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("PALLASBENCH_TIMER_LIB", str(tmp_path / "libpallasbench_timer.so"))
    with pytest.raises(device_timer.TimerUnavailable, match="libpallasbench_timer.so not found"):
        device_timer.DeviceTimer()


def test_timer_refuses_a_missing_cupti(monkeypatch, tmp_path):
    library = registry.project_root() / "build" / "libpallasbench_timer.so"
    if not library.exists():
        pytest.skip("the timer library is built with the harness (make build)")
    monkeypatch.setenv("PALLASBENCH_TIMER_LIB", str(library))
    monkeypatch.setattr(device_timer, "cupti_library", lambda: tmp_path / "libcupti.so.13")
    with pytest.raises(device_timer.TimerUnavailable, match="cannot load .*libcupti.so.13"):
        device_timer.DeviceTimer()


def test_samples_without_device_work_are_refused():
    timer = device_timer.DeviceTimer.__new__(device_timer.DeviceTimer)
    timer.flush_bytes = 1 << 20
    empty = {"samples": [{"sum_us": 0.0, "span_us": 0.0, "activities": 0, "kernels": {}, "kernel_us": {},
                          "sm_clock_mhz": None}], "outside": 1, "straddling": 0}
    with pytest.raises(RuntimeError, match="launched no device work"):
        timer._samples_reply(empty, [10.0], [20.0])
    crossing = dict(empty, straddling=1)
    with pytest.raises(RuntimeError, match="crossed a sample's boundary"):
        timer._samples_reply(crossing, [10.0], [20.0])


def test_samples_reply_adds_kernels_up():
    timer = device_timer.DeviceTimer.__new__(device_timer.DeviceTimer)
    timer.flush_bytes = 1 << 20
    sample = {"sum_us": 5.0, "span_us": 6.0, "activities": 2, "kernels": {"k": 2}, "kernel_us": {"k": 5.0},
              "sm_clock_mhz": 1980}
    reply = timer._samples_reply({"samples": [sample, sample], "outside": 2, "straddling": 0},
                                 [30.0, 31.0], [90.0, 95.0])
    assert reply["timer"] == "cupti" and reply["samples_us"] == [5.0, 5.0]
    assert reply["kernels"] == {"k": {"count": 4, "total_us": 10.0}}
    assert reply["cost_us"] == [90.0, 95.0] and reply["sm_clock_mhz"] == [1980, 1980]


@pytest.mark.parametrize("task,calls", [("softmax", 1), ("matmul", 2)])  # matmul: pack, then matmul
def test_triton_ir_of_the_cuda_lowering(task, calls):
    module = registry.load(task)
    inputs = module.make_inputs(np.random.default_rng(0), module.SHAPES["small"])
    fresh = lambda *xs: module.kernel(*xs)  # noqa: E731 - no trace cached in interpret mode
    with interpret.suspended():
        lowered = jax.jit(fresh).trace(*inputs).lower(lowering_platforms=("cuda",))
    modules = compiler_artifacts.triton_modules(lowered)
    assert len(modules) == calls
    assert len({m["name"] for m in modules}) == calls  # each kernel under its own entry name
    for m in modules:
        assert m["target"] == "__gpu$xla.gpu.triton"
        assert m["num_warps"] >= 1 and m["grid_x"] >= 1
        assert f"tt.func public @{m['name']}" in m["ir"]


def test_collect_without_a_dump_says_what_is_missing(tmp_path):
    (tmp_path / "dump").mkdir()
    found = compiler_artifacts.collect(tmp_path / "dump", ["_body"], tmp_path / "out", pass_trail=False)
    assert "ptx" not in found and "no PTX with an entry ['_body']" in found["unavailable"]["ptx"]
    assert found["unavailable"]["thunk_sequence"] == "XLA dumped no thunk sequence"


def test_sass_job_without_the_toolkit_says_why(tmp_path, monkeypatch):
    (tmp_path / "kernel.ptx").write_text(".version 8.7\n.target sm_90a\n")
    monkeypatch.setenv("PATH", str(tmp_path))  # no ptxas, no cuobjdump
    monkeypatch.setattr(compiler_artifacts, "_toolkit", lambda tool: None)
    found = {"ptx": "kernel.ptx", "kernel_names": ["_body"], "unavailable": {}}
    done = compiler_artifacts.SassJob(found, tmp_path).finish()
    assert "sass" not in done and "ptxas" not in done
    assert "ptxas/cuobjdump not found" in done["unavailable"]["sass"]


def test_sass_job_without_ptx_has_nothing_to_do(tmp_path):
    found = {"kernel_names": ["_body"], "unavailable": {"ptx": "no PTX"}}
    assert compiler_artifacts.SassJob(found, tmp_path).finish() == found
