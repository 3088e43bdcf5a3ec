"""The Pallas backends end to end on the CPU at SMALL, in one `eval --batch` of every example of
docs/writing_candidates.md (each a file of tests/candidates/backends/): plgpu.kernel (Mosaic GPU,
run by the CPU's interpreter for Mosaic GPU kernels), pl.pallas_call pinned to Triton, and plain
pl.pallas_calls as the Pallas docs write them (Triton, as the GPU machine's jax lowers them), a
relu and a softmax each: all correct and robust; a plgpu.kernel softmax whose blocks overflow
shared memory: a compile_error that names Mosaic GPU, the rule and the fix, on the record and on
the terminal, each line naming its candidate's file."""
import json
import re

from e2e_support import ROOT, run_cli

from pallasbench import record_schema

GUIDE = ROOT / "docs" / "writing_candidates.md"
EXAMPLE = re.compile(r"<!-- candidate: (\S+) task: (\w+) expect: (\w+) -->\n```python\n(.*?)```", re.S)


def examples() -> list[tuple[str, str, str, str]]:
    """(file, task, expected status, source) of every example the guide marks as a candidate."""
    return EXAMPLE.findall(GUIDE.read_text())


def test_the_guides_examples_are_the_candidate_files():
    found = examples()
    files = sorted((ROOT / "tests" / "candidates" / "backends").glob("*.py"))
    assert sorted(ROOT / f for f, *_ in found) == files  # every file shown, each once
    for path, _, _, source in found:
        assert source == (ROOT / path).read_text(), path


def test_each_backend_passes_and_a_broken_rule_teaches(env, tmp_path):
    found = examples()
    assert {expect for *_, expect, _ in found} == {"ok", "compile_error"}
    batch = tmp_path / "requests.jsonl"
    # The files, equal to the guide's blocks (the test above): records and lines name them.
    batch.write_text("".join(json.dumps({"id": path.rsplit("/", 1)[-1], "task": task, "path": str(ROOT / path)}) + "\n"
                             for path, task, _, _ in found))
    out = tmp_path / "out"
    result = run_cli(env, "eval", "--batch", batch, "--size", "small", "--device", "cpu", "--no-timing",
                     "--jobs", "2", "--out", out, timeout=900)
    assert result.returncode == 1, result.stderr[-3000:]
    records = {r["request_id"]: r for r in map(json.loads, (out / "records.jsonl").read_text().splitlines())}
    schema = record_schema.load()
    for path, _, expect, _ in found:
        name = path.rsplit("/", 1)[-1]
        record = records[name]
        assert record_schema.check(record, schema) == [], name
        assert record["status"] == expect, (name, record.get("error"))
        if expect == "ok":
            assert record["result"]["robustness_passed"], (name, record["result"])
            # The module the harness analysed holds the backend's kernel.
            analysed = record["trust"]["analysed_stablehlo"]
            assert ("mosaic_gpu_v2" in analysed) == name.startswith("mosaic"), name
            assert ("__gpu$xla.gpu.triton" in analysed) == (not name.startswith("mosaic")), name

    broken = records["mosaic_softmax_smem.py"]
    assert broken["error"]["phase"] == "trace"
    message, lowering = broken["error"]["message"], broken["error"]["lowering"]
    assert message == ("Mosaic GPU lowering failed: ValueError: Mosaic GPU kernel exceeds available shared memory: "
                       "smem_bytes=264200 > max_smem_bytes=232448")
    assert lowering["backend"] == "mosaic_gpu" and "plgpu.kernel" in lowering["chosen_by"]
    assert lowering["candidate_line"] == "mosaic_softmax_smem.py:27 in kernel: return plgpu.kernel("
    assert "227 KiB of shared memory" in lowering["fixes"][0] and "smaller blocks" in lowering["fixes"][0]

    # The terminal (eval prints on stderr): each line names its candidate, and the failure comes
    # whole with its help.
    terminal = result.stderr
    for path, *_ in found:
        assert f") {path.rsplit('/', 1)[-1]} " in terminal, terminal
    assert "\n    " + message + "\n" in terminal, terminal
    assert "\n    backend: Mosaic GPU - plgpu.kernel" in terminal
    assert "\n    at: mosaic_softmax_smem.py:27 in kernel: return plgpu.kernel(\n" in terminal
    assert "\n    fix: Mosaic GPU gives a block 227 KiB of shared memory" in terminal


def test_eval_help_points_to_the_guide(env):
    result = run_cli(env, "eval", "--help")
    assert result.returncode == 0 and "docs/writing_candidates.md" in result.stdout.splitlines()[-1]
    assert GUIDE.is_file()


def test_a_gpu_only_implementation_is_left_out_on_the_cpu_and_named(env, tmp_path):
    """matmul's Mosaic GPU implementation (three warpgroups) is GPU-only: `--backend mosaic` on the
    CPU runs nothing of it and says so, instead of a refusal record (`preferred` runs its Triton
    one there: tests/e2e/test_run.py's suite)."""
    result = run_cli(env, "run", "--size", "small", "--backend", "mosaic", "matmul", "--out", str(tmp_path / "run"))
    assert result.returncode == 0, result.stderr
    assert "GPU-only implementation(s) left out on the CPU: matmul/mosaic_gpu" in result.stderr
    assert "0 of 0 passed" in result.stdout
    assert not (tmp_path / "run" / "records.jsonl").exists() or not (tmp_path / "run" / "records.jsonl").read_text()
