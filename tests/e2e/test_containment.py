"""Every candidate bounded and contained, on the CPU (issue 37; bench/containment_gpu.sh is the
GPU's batch): host-memory hogs, tmpfs fillers and the GPU's memory hogs (on the CPU their modules
run in the lane executor's host memory; gpu_memory_hog_temporaries.py is GPU only, its docstring
says why) in one `eval --batch` at two lanes beside honest
candidates, with small shares (--tracer-memory, --tracer-tmpfs, --worker-memory) so the test is
quick and safe on a 2-core CI machine. Each hog fails on its own with a reason naming the limit it
met; every honest candidate is ok and robust; no process of the harness is killed (no harness
error, exit 1 for the hogs' failures)."""
import json
from pathlib import Path

import pytest

from e2e_support import CANDIDATES, ROOT, run_cli
from pallasbench import record_schema

HOSTILE = ROOT / "tests" / "candidates" / "containment"
BACKENDS = ROOT / "tests" / "candidates" / "backends"
TRACER_GIB = 1.5
TMPFS_MIB = 64
WORKER_GIB = 1  # gpu_memory_hog_operand.py's module needs 1.5 GiB at SMALL

TRACER_MEMORY = ("--tracer-memory", f"{TRACER_GIB:.1f} GiB")
TRACER_TMPFS = ("--tracer-tmpfs", f"{TMPFS_MIB} MiB each")
LANE_SHARE = ("--worker-memory", f"more than the lane's share, {WORKER_GIB:.1f} GiB")
# (request id, file, the phase it fails in, what its message must name); all are relu candidates.
# A tracer's memory fails its trace (under rlimits the allocation or the write fails: MemoryError,
# ENOSPC; a cgroup kills at its limit); the lane's runs out when its module runs, twice (the retry
# alone), and the module's own size against the share makes it the candidate's.
HOGS = [
    ("hog-import", HOSTILE / "host_memory_hog_import.py", "trace", TRACER_MEMORY),
    ("hog-trace", HOSTILE / "host_memory_hog_trace.py", "trace", TRACER_MEMORY),
    ("fill-tmp", HOSTILE / "tmpfs_filler_tmp.py", "trace", TRACER_TMPFS),
    ("fill-shm", HOSTILE / "tmpfs_filler_shm.py", "trace", TRACER_TMPFS),
    ("lane-operand", HOSTILE / "gpu_memory_hog_operand.py", "run", LANE_SHARE),
]
HONEST = [
    ("relu-good", "relu", CANDIDATES / "relu_good.py"),
    ("triton-relu", "relu", BACKENDS / "triton_relu.py"),
    ("triton-softmax", "softmax", BACKENDS / "triton_softmax.py"),
    ("suite-add", "add", ROOT / "tasks" / "level1" / "add.py"),  # a suite task file as a candidate
]


@pytest.fixture(scope="module")
def contained(env, tmp_path_factory):
    batch = tmp_path_factory.mktemp("containment") / "requests.jsonl"
    requests = [{"id": i, "task": "relu", "path": str(p)} for i, p, _, _ in HOGS] + \
               [{"id": i, "task": t, "path": str(p)} for i, t, p in HONEST]
    batch.write_text("".join(json.dumps(r) + "\n" for r in requests))
    result = run_cli(env, "eval", "--batch", batch, "--device", "cpu", "--no-timing", "--jobs", "2", "--json",
                     "--tracer-memory", TRACER_GIB, "--tracer-tmpfs", TMPFS_MIB, "--worker-memory", WORKER_GIB,
                     timeout=600)
    records = {r["request_id"]: r for r in map(json.loads, result.stdout.splitlines())}
    return result, records


def test_the_batch_fails_for_the_hogs_alone(contained):
    result, records = contained
    assert result.returncode == 1, result.stderr[-3000:]  # failures of candidates: not 3, not a signal
    assert sorted(records) == sorted([h[0] for h in HOGS] + [h[0] for h in HONEST])
    assert not [i for i, r in records.items() if r["status"] == "harness_error"]


@pytest.mark.parametrize("request_id, phase, names", [(h[0], h[2], h[3]) for h in HOGS])
def test_each_hog_fails_on_its_own_naming_the_limit(contained, request_id, phase, names):
    record = contained[1][request_id]
    expected = ("compile_error", "crashed") if phase == "trace" else ("runtime_error",)
    assert record["status"] in expected, record.get("error")
    assert record["error"]["phase"] == phase
    message = record["error"]["message"]
    assert all(name in message for name in names), message
    if phase == "run":  # retried with the device to its lane alone first
        assert "RESOURCE_EXHAUSTED" in record["trust"]["retried_alone"]["message"]


@pytest.mark.parametrize("request_id", [h[0] for h in HONEST])
def test_every_honest_candidate_is_ok_and_robust(contained, request_id):
    record = contained[1][request_id]
    assert record["status"] == "ok" and record["result"]["robustness_passed"], record.get("error")


def test_the_record_says_what_bounded_each_process(contained):
    schema = record_schema.load()
    for request_id, record in contained[1].items():
        assert record_schema.check(record, schema) == [], request_id
        sandbox = record["trust"]["tracer_sandbox"]
        limit = sandbox["memory_limit"]
        assert limit["mechanism"] in ("cgroup", "rlimit"), limit
        assert limit["bytes"] == int(TRACER_GIB * (1 << 30))
        if limit["mechanism"] == "rlimit":  # and why the machine gave no cgroup
            assert limit["no_cgroup"] and "RLIMIT_AS" in limit["detail"], limit
        assert sandbox["tmpfs_bytes"] == TMPFS_MIB << 20
        for role in ("executor", "reference"):
            worker = record["trust"]["worker_memory"][role]
            assert worker["mechanism"] in ("cgroup", "rlimit") and worker["bytes"] == WORKER_GIB << 30, worker


@pytest.mark.parametrize("flags, message", [
    (["--tracer-memory", "0.5"], "--tracer-memory 0.5: a tracer's share must hold its private /tmp and /dev/shm"),
    (["--device-share", "2"], "--device-share 2: a fraction of the GPU's memory in (0, 1]"),
    (["--artifacts-timeout", "0"], "--artifacts-timeout 0: a finite number of seconds"),
])
def test_a_share_that_cannot_work_is_refused_before_anything_runs(env, flags, message):
    result = run_cli(env, "eval", "--task", "relu", "--candidate", CANDIDATES / "relu_good.py", "--device", "cpu",
                     *flags)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr, result.stderr
