"""The typed protocol (pallasbench.worker.protocol), the server's dispatch by role, and the
sampling loops' counts, in process: no worker is started."""
import json
import time

import jax.numpy as jnp
import pytest

from pallasbench.worker import executor, protocol, reference, sampling, server, tracer
from pallasbench.worker.protocol import CommandError

TIME = {"inputs": ["/x.npy"], "warmup": 2, "samples": 5, "max_seconds": 1}


def read(cmd: str, **body):
    return protocol.REQUESTS[cmd].from_json({"id": 1, "cmd": cmd, **body})


def refused(cmd: str, **body) -> str:
    with pytest.raises(CommandError) as failure:
        read(cmd, **body)
    assert failure.value.kind == "usage_error"
    return str(failure.value)


def test_a_request_reads_into_its_typed_fields():
    req = read("time", **TIME, output="/out.npy")
    assert req == protocol.TimeRequest(inputs=["/x.npy"], warmup=2, samples=5, max_seconds=1.0, output="/out.npy")
    assert isinstance(req.max_seconds, float)  # a JSON integer is a number
    trace = read("trace", candidate={"source": "def kernel(x): ...", "name": "mine.py"},
                 inputs=[{"shape": [8, 8], "dtype": "float32"}], platform="cpu")
    assert trace.candidate.encoding == "utf-8" and trace.inputs[0].shape == [8, 8] and trace.device_kind is None
    assert read("device") == protocol.DeviceRequest(ceilings=False)


@pytest.mark.parametrize("cmd,body,message", [
    ("time", {k: v for k, v in TIME.items() if k != "samples"}, "time: field 'samples' is missing"),
    ("time", TIME | {"samples": True}, "time: field 'samples' must be an integer, got boolean"),
    ("time", TIME | {"samples": 2.0}, "time: field 'samples' must be an integer, got number"),
    ("time", TIME | {"samples": 0}, "time: field 'samples' must be at least 1"),
    ("time", TIME | {"max_seconds": 0}, "time: field 'max_seconds' must be above 0"),
    ("time", TIME | {"min_samples": 3}, "time: field 'min_samples' is not a known field"),
    ("time", TIME | {"inputs": "/x.npy"}, "time: field 'inputs' must be an array, got string"),
    ("time_reference", TIME | {"task": "relu", "precision": "tf32"}, "field 'precision' must be one of"),
    ("trace", {"candidate": {"task": "relu", "source": "x"}, "inputs": [], "platform": "cpu"},
     "trace: field 'candidate' needs exactly one of 'task' and 'source'"),
    ("trace", {"candidate": {"task": "relu"}, "inputs": [{"shape": [8, "8"], "dtype": "float32"}],
               "platform": "cpu"}, "trace: field 'inputs[0].shape[1]' must be an integer, got string"),
    ("trace", {"candidate": {"task": "relu"}, "inputs": [], "platform": "tpu"}, "field 'platform' must be one of"),
    ("compile", {"artifacts": {"mode": "files"}}, "compile: field 'artifacts.dir' is missing"),
    ("reference", {"task": "relu", "size": "small", "seed": -1, "dir": "/tmp"}, "field 'seed' must be at least 0"),
    ("describe", {"candidate_files": []}, "describe: field 'max_source_bytes' is missing"),
])
def test_a_missing_mistyped_or_unknown_field_is_refused_by_name(cmd, body, message):
    assert message in refused(cmd, **body)


def test_each_role_answers_its_own_commands_and_no_others():
    roles = {"tracer": tracer.Tracer, "executor": executor.Executor, "reference": reference.Reference}
    for role, handler in roles.items():
        assert handler.ROLE == role
        methods = {name[4:] for name in dir(handler) if name.startswith("cmd_")}
        assert methods | {"shutdown"} == set(protocol.commands_of(role))
    assert protocol.commands_of("tracer") == ["trace", "shutdown"]
    assert protocol.commands_of("executor") == ["artifacts", "compile", "load", "run", "time", "shutdown"]
    assert protocol.commands_of("reference") == ["describe", "device", "reference", "time_reference", "shutdown"]


class Recorder:
    """A handler that records what it was asked, to see the server's dispatch."""

    ROLE = "executor"

    def __init__(self):
        self.asked = []

    def cmd_time(self, req):
        self.asked.append(req)
        return {"samples_us": []}

    def cmd_describe(self, req):  # a foreign method must stay unreachable
        raise AssertionError("the executor answered describe")


def test_the_server_dispatches_typed_requests_and_refuses_foreign_ones():
    handler = Recorder()
    ok = server.handle(handler, json.dumps({"id": 3, "cmd": "time", **TIME}))
    assert ok == {"id": 3, "ok": True, "samples_us": []} and handler.asked[0].samples == 5
    foreign = server.handle(handler, json.dumps({"id": 4, "cmd": "describe", "candidate_files": [],
                                                 "max_source_bytes": 1}))
    assert not foreign["ok"] and foreign["error"]["kind"] == "usage_error"
    assert "the executor does not answer 'describe', a command of the reference" in foreign["error"]["message"]
    unknown = server.handle(handler, json.dumps({"id": 5, "cmd": "frobnicate"}))
    assert "the executor has no command 'frobnicate'" in unknown["error"]["message"]
    mistyped = server.handle(handler, json.dumps({"id": 6, "cmd": "time", **TIME, "warmup": "3"}))
    assert mistyped["id"] == 6 and "time: field 'warmup' must be an integer" in mistyped["error"]["message"]
    assert len(handler.asked) == 1  # nothing ran for a refused request
    assert server.handle(handler, '{"id": 7, "cmd": "shutdown"}') == {"id": 7, "ok": True, "bye": True}
    assert not server.handle(handler, '["time"]')["ok"]
    assert "'id' must be an integer" in server.handle(handler, '{"id": "1", "cmd": "time"}')["error"]["message"]


def counted(calls: list):
    def fn(x):
        calls.append(time.perf_counter())
        return x + 1
    return fn


def test_warm_up_makes_exactly_the_calls_asked():
    calls = []
    times = sampling.warm_up(counted(calls), [jnp.ones(4)], 4)
    assert len(calls) == 4 and len(times) == 4 and all(t > 0 for t in times)
    assert sampling.warm_up(counted(calls), [jnp.ones(4)], 0) == [] and len(calls) == 4


def test_wall_samples_take_the_count_asked_unless_time_runs_out():
    calls = []
    samples, out = sampling.wall_samples(counted(calls), [jnp.ones(4)], 7, 60.0)
    assert len(samples) == 7 == len(calls) and float(out[0]) == 2.0

    def slow(x):
        time.sleep(0.05)
        return x
    capped, _ = sampling.wall_samples(slow, [jnp.ones(4)], 1000, 0.12)
    assert 1 <= len(capped) <= 4  # max_seconds ends the batch early, with fewer samples


def test_a_timed_batch_on_the_cpu_reports_its_warm_up():
    calls = []
    batch = read("time", **TIME)
    sampler = sampling.Sampler()
    reply = sampler.timed(counted(calls), [jnp.ones(4)], batch)
    assert reply["timer"] == "wall" and len(reply["samples_us"]) == 5 and len(reply["warmup_us"]) == 2
    assert len(calls) == 7 and sampler.last_output is not None
