"""The reference role's two-step requests, in process (python/pallasbench/worker/reference.py):
what the first step (inputs_only, no device lease on the C++ side) may do, and that the second
step reuses it."""
import numpy as np

from pallasbench.worker.protocol import ReferenceRequest
from pallasbench.worker.reference import Reference


def request(tmp_path, **fields):
    return ReferenceRequest(**({"task": "relu", "size": "small", "seed": 11, "dir": str(tmp_path)} | fields))


def lowerings(role, monkeypatch):
    """Counts the references lowered for a compile (each compile lowers once)."""
    count = {"n": 0}
    make = role._reference_fn

    def counted(module, precision):
        fn = make(module, precision)

        class Counting:
            def lower(self, *avals):
                count["n"] += 1
                return fn.lower(*avals)
        return Counting()
    monkeypatch.setattr(role, "_reference_fn", counted)
    return count


def test_the_first_step_compiles_the_reference_and_the_second_reuses_it(tmp_path, monkeypatch):
    role = Reference()
    count = lowerings(role, monkeypatch)
    first = role.cmd_reference(request(tmp_path, inputs_only=True))
    assert "output" not in first and len(first["inputs"]) == 1 and not (tmp_path / "ref.npy").exists()
    assert count["n"] == 1
    second = role.cmd_reference(request(tmp_path))
    assert count["n"] == 1  # compiled in the first step, not again
    x = np.load(second["inputs"][0]["path"])
    np.testing.assert_array_equal(np.load(second["output"]["path"]), np.maximum(x, 0))
    # Another seed of the same shapes reuses the executable, and so does a stress case (every
    # reference is float64).
    role.cmd_reference(request(tmp_path, seed=12))
    assert count["n"] == 1
    role.cmd_reference(request(tmp_path, stress="tiny", inputs_only=True))
    assert count["n"] == 1


def test_the_reference_is_float64_and_the_platform_is_xla_at_the_class(tmp_path):
    """The seed's reference is the float64 truth; the platform request gives XLA's own output on
    the same inputs at the task's class (TF32 contractions for matmul), writing no inputs."""
    role = Reference()
    fields = {"task": "matmul", "seed": 5}
    reply = role.cmd_reference(request(tmp_path, **fields))
    a, b = (np.load(i["path"]).astype(np.float64) for i in reply["inputs"])
    truth = (a @ b).astype(np.float32)
    np.testing.assert_array_equal(np.load(reply["output"]["path"]), truth)
    platform_dir = tmp_path / "platform"
    platform_dir.mkdir()
    platform = role.cmd_reference(request(platform_dir, platform=True, **fields))
    assert platform["inputs"] == [] and sorted(p.name for p in platform_dir.iterdir()) == ["platform.npy"]
    xla = np.load(platform["output"]["path"])
    assert xla.dtype == np.float32 and xla.shape == truth.shape
    # TF32's error: ~2^-11 relative per operand, far above float32's and far below bf16's.
    error = np.linalg.norm(xla - (a @ b)) / np.linalg.norm(a @ b)
    assert 1e-5 < error < 1e-3, error
    # A float32-class task (relu: no contraction) gets XLA's float32 result: exact here.
    relu_dir = tmp_path / "relu"
    relu_dir.mkdir()
    relu = role.cmd_reference(request(relu_dir, platform=True))
    relu_ref = role.cmd_reference(request(tmp_path / "relu", seed=11))
    np.testing.assert_array_equal(np.load(relu["output"]["path"]), np.load(relu_ref["output"]["path"]))


def test_a_large_case_narrower_than_float32_is_left_to_the_second_step(tmp_path, monkeypatch):
    # Fitting its factor runs references on the device: nothing of it in the step without a lease.
    role = Reference()
    count = lowerings(role, monkeypatch)
    fields = {"task": "matmul", "stress": "large", "dtype": "float16"}
    assert role.cmd_reference(request(tmp_path, inputs_only=True, **fields)) == {"inputs": []}
    assert count["n"] == 0 and not list(tmp_path.iterdir())
    reply = role.cmd_reference(request(tmp_path, **fields))
    assert count["n"] >= 1 and np.isfinite(np.load(reply["output"]["path"])).all()
    # bfloat16 holds float32's range: its large case is drawn in the first step as usual.
    assert role.cmd_reference(request(tmp_path, inputs_only=True, task="matmul", stress="large",
                                      dtype="bfloat16"))["inputs"]


def test_the_large_case_says_the_factor_it_used(tmp_path):
    from pallasbench.task import registry

    role = Reference()
    declared = registry.load("mlp_block").STRESS.large_factor
    for dtype, shrinks in (("float32", False), ("bfloat16", False), ("float16", True)):
        (tmp_path / dtype).mkdir()
        reply = role.cmd_reference(request(tmp_path / dtype, task="mlp_block", stress="large", dtype=dtype))
        used = reply["large_factor"]
        assert (used < declared) if shrinks else (used == declared), (dtype, used, declared)
        assert 1 <= used
    assert "large_factor" not in role.cmd_reference(request(tmp_path, task="mlp_block", stress="tiny"))


def test_describe_describes_the_named_tasks_only_and_leaves_out_unknown_names():
    """The harness names the tasks of a command that names them all (each described task costs
    the start its import and bundling); a name the suite lacks is left for the selection to
    refuse, not a load error."""
    from pallasbench.worker.protocol import DescribeRequest

    reply = Reference().cmd_describe(DescribeRequest(candidate_files=[], max_source_bytes=1 << 20,
                                                     tasks=["relu", "no_such_task", "matmul"]))
    assert [t["name"] for t in reply["tasks"]] == ["relu", "matmul"] and reply["errors"] == []
    assert "tiled_matmul" in reply["tasks"][1]["kernel_bundled_source"]
