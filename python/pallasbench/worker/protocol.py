"""The requests the harness sends its workers: one dataclass per command, read from the request's
JSON object by `from_json`. docs/protocol.md is the contract (the C++ side mirrors it there).

Reading is strict: a field without a default is required, every field is type-checked (a JSON
integer is not a boolean, a number with a fraction is not an integer), an unknown field is
refused, and each request checks its own ranges and choices. Whatever is wrong, the reply is a
usage_error naming the command and the field, before any work starts. The harness is the only
sender; strictness finds its mistakes (a stale or misspelled key) instead of silently taking a
default.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import ClassVar

PLATFORMS = ("cpu", "gpu")
ARTIFACT_MODES = ("none", "inline", "files")
MATMUL_PRECISIONS = ("default", "high", "highest")
from pallasbench.task.dtypes import DTYPES  # noqa: E402  (float32, bfloat16, float16)


class CommandError(Exception):
    """A failure to report with its kind: compile_error, runtime_error, task_error, usage_error;
    `details`, a failure to lower a kernel's (worker/backends.py): backend, chosen_by,
    candidate_line, fixes."""

    def __init__(self, kind: str, message: str, details: dict | None = None):
        super().__init__(message)
        self.kind, self.details = kind, details


class _BadField(Exception):
    """A field that is missing, of the wrong type or out of range; `field` is its dotted path."""

    def __init__(self, field: str, problem: str):
        super().__init__(problem)
        self.field, self.problem = field, problem


def _json_type(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _join(where: str, name: str) -> str:
    return f"{where}.{name}" if where and name else where or name


def _read(value, hint, where: str):
    """`value` checked against the type `hint`, nested messages built."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(hint) if a is not type(None)]
        if value is None and len(options) < len(typing.get_args(hint)):
            return None
        (hint,) = options
        origin = typing.get_origin(hint)
    if origin is list:
        if not isinstance(value, list):
            raise _BadField(where, f"must be an array, got {_json_type(value)}")
        (item,) = typing.get_args(hint)
        return [_read(v, item, f"{where}[{i}]") for i, v in enumerate(value)]
    if origin is dict:  # keyed by strings (a JSON object)
        if not isinstance(value, dict):
            raise _BadField(where, f"must be an object, got {_json_type(value)}")
        _, item = typing.get_args(hint)
        return {k: _read(v, item, f"{where}[{k!r}]") for k, v in value.items()}
    if isinstance(hint, type) and issubclass(hint, Message):
        return hint.read(value, where)
    accepted = {bool: (bool,), int: (int,), float: (int, float), str: (str,)}[hint]
    if not isinstance(value, accepted) or (hint is not bool and isinstance(value, bool)):
        expected = {bool: "a boolean", int: "an integer", float: "a number", str: "a string"}[hint]
        raise _BadField(where, f"must be {expected}, got {_json_type(value)}")
    return float(value) if hint is float else value


@dataclasses.dataclass(frozen=True)
class Message:
    """A JSON object of known fields."""

    @classmethod
    def read(cls, obj, where: str = ""):
        if not isinstance(obj, dict):
            raise _BadField(where, f"must be an object, got {_json_type(obj)}")
        hints = typing.get_type_hints(cls)
        fields = {f.name: f for f in dataclasses.fields(cls)}
        unknown = sorted(set(obj) - set(fields))
        if unknown:
            raise _BadField(_join(where, unknown[0]), "is not a known field")
        values = {}
        for name, field in fields.items():
            if name in obj:
                values[name] = _read(obj[name], hints[name], _join(where, name))
            elif field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
                raise _BadField(_join(where, name), "is missing")
        message = cls(**values)
        try:
            message.check()
        except _BadField as bad:
            raise _BadField(_join(where, bad.field), bad.problem) from None
        return message

    def check(self) -> None:
        """Constraints beyond the types; raises _BadField."""


def _at_least(name: str, value, low) -> None:
    if value is not None and value < low:
        raise _BadField(name, f"must be at least {low}, got {value}")


def _one_of(name: str, value, choices: tuple) -> None:
    if value is not None and value not in choices:
        raise _BadField(name, f"must be one of {', '.join(choices)}, got {value!r}")


@dataclasses.dataclass(frozen=True)
class Request(Message):
    """A command's request; the envelope's "id" and "cmd" are the server's."""

    COMMAND: ClassVar[str]
    ROLE: ClassVar[str]

    @classmethod
    def from_json(cls, obj: dict):
        body = {k: v for k, v in obj.items() if k not in ("id", "cmd")}
        try:
            return cls.read(body)
        except _BadField as bad:
            raise CommandError("usage_error", f"{cls.COMMAND}: field '{bad.field}' {bad.problem}") from None


REQUESTS: dict[str, type[Request]] = {}
ENVELOPE_COMMANDS = ("shutdown",)  # answered by every role, by the server itself


def _command(name: str, role: str):
    def register(cls):
        cls.COMMAND, cls.ROLE = name, role
        REQUESTS[name] = cls
        return cls
    return register


def commands_of(role: str) -> list[str]:
    return sorted(name for name, cls in REQUESTS.items() if cls.ROLE == role) + list(ENVELOPE_COMMANDS)


def refusal(role: str, command) -> str:
    """Why `role` does not answer `command`."""
    answers = ", ".join(commands_of(role))
    if not isinstance(command, str):
        return f"the request's 'cmd' must be a command name, got {_json_type(command)} (the {role} answers: {answers})"
    owner = REQUESTS.get(command)
    if owner is not None:
        return f"the {role} does not answer '{command}', a command of the {owner.ROLE} (the {role} answers: {answers})"
    return f"the {role} has no command {command!r} (it answers: {answers})"


# ---- shared parts ----

@dataclasses.dataclass(frozen=True)
class InputSpec(Message):
    shape: list[int]
    dtype: str

    def check(self):
        for i, extent in enumerate(self.shape):
            _at_least(f"shape[{i}]", extent, 0)


@dataclasses.dataclass(frozen=True)
class Candidate(Message):
    """Exactly one of: `task`, a suite task (its own kernel file); `source`, a user candidate's
    file as the reference process read it, with its `name` and declared `encoding`."""

    task: str | None = None
    source: str | None = None
    name: str | None = None
    encoding: str = "utf-8"
    backend: str | None = None  # a suite task's implementation (registry.BACKENDS); None: `kernel`

    def check(self):
        if (self.task is None) == (self.source is None):
            raise _BadField("", "needs exactly one of 'task' and 'source'")
        if self.backend is not None and self.task is None:
            raise _BadField("backend", "names a suite task's implementation: a candidate is what its module holds")
        if self.source is not None and self.name is None:
            raise _BadField("name", "is missing (a source candidate is named for its messages)")
        if not self.encoding:
            raise _BadField("encoding", "must name a codec, got an empty string")


@dataclasses.dataclass(frozen=True)
class Artifacts(Message):
    mode: str
    dir: str | None = None
    pass_trail: bool = False

    def check(self):
        _one_of("mode", self.mode, ARTIFACT_MODES)
        if self.mode != "none" and self.dir is None:
            raise _BadField("dir", f"is missing (mode '{self.mode}' writes its files there)")


@dataclasses.dataclass(frozen=True)
class TimingRequest(Request):
    """A batch of timing samples: exactly `warmup` untimed calls, then `samples` timed ones,
    fewer when `max_seconds` of host time have passed since the first timed call began (at
    least one is always taken). How many and when to stop are the harness's decisions."""

    inputs: list[str]
    warmup: int
    samples: int
    max_seconds: float

    def check(self):
        _at_least("warmup", self.warmup, 0)
        _at_least("samples", self.samples, 1)
        if not self.max_seconds > 0:
            raise _BadField("max_seconds", f"must be above 0, got {self.max_seconds}")


# ---- tracer ----

@_command("trace", "tracer")
@dataclasses.dataclass(frozen=True)
class TraceRequest(Request):
    candidate: Candidate
    inputs: list[InputSpec]
    platform: str
    device_kind: str | None = None

    def check(self):
        _one_of("platform", self.platform, PLATFORMS)


# ---- executor ----

@_command("load", "executor")
@dataclasses.dataclass(frozen=True)
class LoadRequest(Request):
    module: str
    inputs: list[InputSpec]
    analysis_module: str | None = None


@_command("compile", "executor")
@dataclasses.dataclass(frozen=True)
class CompileRequest(Request):
    artifacts: Artifacts


@_command("artifacts", "executor")
@dataclasses.dataclass(frozen=True)
class ArtifactsRequest(Request):
    pass


@_command("run", "executor")
@dataclasses.dataclass(frozen=True)
class RunRequest(Request):
    inputs: list[str]
    outputs: list[str]


@_command("time", "executor")
@dataclasses.dataclass(frozen=True)
class TimeRequest(TimingRequest):
    output: str | None = None


# ---- reference ----

@_command("describe", "reference")
@dataclasses.dataclass(frozen=True)
class DescribeRequest(Request):
    candidate_files: list[str]
    max_source_bytes: int
    tasks: list[str] | None = None
    # candidate file -> the tasks its records' `diff` is against (their task files)
    diff_against: dict[str, list[str]] = dataclasses.field(default_factory=dict)

    def check(self):
        _at_least("max_source_bytes", self.max_source_bytes, 0)


@_command("reference", "reference")
@dataclasses.dataclass(frozen=True)
class ReferenceRequest(Request):
    task: str
    size: str
    seed: int
    dir: str
    stress: str | None = None
    perturb: int | None = None
    # Only draw and write the inputs (host work); the next request with the same fields makes the
    # reference output from them (device work): the harness holds the device only for that.
    inputs_only: bool = False
    dtype: str = "float32"  # the run's float dtype: inputs and output rounded to it (task/dtypes.py)
    # The output of XLA's own implementation at the task's precision class on the same inputs,
    # instead of the float64 reference (worker/platform.py); no inputs are written.
    platform: bool = False

    def check(self):
        _at_least("seed", self.seed, 0)
        _at_least("perturb", self.perturb, 0)
        _one_of("dtype", self.dtype, DTYPES)


@_command("time_reference", "reference")
@dataclasses.dataclass(frozen=True)
class TimeReferenceRequest(TimingRequest):
    task: str
    precision: str
    dtype: str = "float32"  # the XLA baseline runs at the run's dtype

    def check(self):
        super().check()
        _one_of("precision", self.precision, MATMUL_PRECISIONS)
        _one_of("dtype", self.dtype, DTYPES)


@_command("device", "reference")
@dataclasses.dataclass(frozen=True)
class DeviceRequest(Request):
    ceilings: bool = False
