"""The device timer's Python side and the compiler-artifact helpers, on a machine without a GPU."""
from pathlib import Path

import numpy as np
import pytest

import jax

from pallasbench.task import registry
from pallasbench.worker import compiler_artifacts, device_timer, interpret


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
    launches = [["k", 64, 1, 1, 128], ["k", 64, 1, 1, 128]]
    sample = {"sum_us": 5.0, "span_us": 6.0, "activities": 2, "kernels": {"k": 2}, "kernel_us": {"k": 5.0},
              "sm_clock_mhz": 1980, "launches": launches}
    reply = timer._samples_reply({"samples": [sample, sample], "outside": 2, "straddling": 0},
                                 [30.0, 31.0], [90.0, 95.0])
    assert reply["timer"] == "cupti" and reply["samples_us"] == [5.0, 5.0]
    assert reply["sample_launches"] == [launches, launches]  # each sample's own, for the launch check
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


class FakeLowered:
    """A lowered module whose compile writes the given dump files (or fails)."""

    def __init__(self, files=None, error=None):
        self.files, self.error, self.options = files or {}, error, None

    def compile(self, compiler_options=None):
        self.options = compiler_options
        if self.error:
            raise RuntimeError(self.error)
        dump = Path(compiler_options["xla_dump_to"])
        dump.mkdir(parents=True, exist_ok=True)
        for name, text in self.files.items():
            (dump / name).write_text(text)


def test_capture_job_compiles_with_the_dump_and_reports_missing_tools(tmp_path, monkeypatch):
    ptx = ".version 8.7\n.target sm_90a\n.visible .entry _body(\n)\n{\n}\n"
    lowered = FakeLowered({"module_0001.jit_k.ptx": ptx, "module_0001.jit_k.thunk_sequence.txt": "kernel"})
    monkeypatch.setenv("PATH", str(tmp_path))  # no ptxas, no cuobjdump
    monkeypatch.setattr(compiler_artifacts, "_toolkit", lambda tool: None)
    done = compiler_artifacts.CaptureJob(lowered, ["_body"], tmp_path / "out", pass_trail=False).finish()
    assert lowered.options["xla_dump_emitter_re"] == ".*"  # the only setting that dumps the PTX
    assert (tmp_path / "out" / done["ptx"]).read_text() == "// ---- module_0001.jit_k.ptx\n" + ptx
    assert done["thunk_sequence"] == "thunk_sequence.txt" and done["capture_compile_s"] >= 0
    assert "ptxas/cuobjdump not found" in done["unavailable"]["sass"] and "sass" not in done
    assert not (tmp_path / "out" / "xla_dump").exists()  # the dump is removed once picked apart


def _ptx(*entries: str) -> str:
    return ".version 8.7\n.target sm_90a\n" + "".join(f".visible .entry {e}(\n)\n{{\n}}\n" for e in entries)


FAKE_PTXAS = """#!/bin/sh
# fake ptxas: ptxas -arch=sm_90a -O3 -v IN -o OUT
for e in $(grep -o 'entry [a-z_]*' "$4" | cut -d' ' -f2); do echo "ptxas info : Compiling entry function '$e'" >&2; done
cp "$4" "$6"
"""
FAKE_CUOBJDUMP = """#!/bin/sh
# fake cuobjdump: cuobjdump -sass CUBIN
for e in $(grep -o 'entry [a-z_]*' "$2" | cut -d' ' -f2); do echo "Function : $e"; done
"""


def test_capture_job_assembles_each_module_of_a_multi_kernel_function(tmp_path, monkeypatch):
    files = {"module_0001.jit_k.0.ptx": _ptx("k_pack"),          # an earlier compile in the dump
             "module_0002.jit_k.0.ptx": _ptx("k_pack"),          # the final module: pack kernel ...
             "module_0002.jit_k.1.ptx": _ptx("k_main", "fusion_3")}  # ... and the main kernel
    tools = tmp_path / "bin"
    tools.mkdir()
    for name, script in (("ptxas", FAKE_PTXAS), ("cuobjdump", FAKE_CUOBJDUMP)):
        (tools / name).write_text(script)
        (tools / name).chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}:/usr/bin:/bin")
    done = compiler_artifacts.CaptureJob(FakeLowered(files), ["k_pack", "k_main"], tmp_path / "out", False).finish()
    whole = (tmp_path / "out" / done["ptx"]).read_text()
    assert "// ---- module_0002.jit_k.0.ptx" in whole and "// ---- module_0002.jit_k.1.ptx" in whole
    assert "module_0001" not in whole
    report = (tmp_path / "out" / done["ptxas"]).read_text()
    assert "'k_pack'" in report and "'k_main'" in report  # one ptxas run per module
    sass = (tmp_path / "out" / done["sass"]).read_text()
    assert sass.count("Function : ") == 3 and "Function : k_pack" in sass
    assert done["unavailable"] == {"thunk_sequence": "XLA dumped no thunk sequence"}


def test_capture_job_without_the_kernel_in_the_dump_says_what_is_missing(tmp_path):
    other = ".version 8.7\n.target sm_90a\n.visible .entry fusion_1(\n)\n{\n}\n"
    done = compiler_artifacts.CaptureJob(FakeLowered({"m.ptx": other}), ["_body"], tmp_path, False).finish()
    assert "ptx" not in done and "no PTX with an entry ['_body']" in done["unavailable"]["ptx"]
    assert "sass" not in done["unavailable"]  # nothing to assemble: no second complaint


def test_capture_job_survives_a_failing_compile(tmp_path):
    done = compiler_artifacts.CaptureJob(FakeLowered(error="out of memory"), ["_body"], tmp_path, False).finish()
    assert done["unavailable"]["ptx"] == "the capture compile failed: RuntimeError: out of memory"
    assert done["kernel_names"] == ["_body"]
