"""The JSON-lines loop every worker runs: `python -u -m pallasbench.worker.<role>`.

A process greets with {"ready": true, "pid": ..., "role": ..., ...}, then answers each request
{"id": n, "cmd": ...} with {"id": n, "ok": true, ...} or
{"id": n, "ok": false, "error": {"kind": ..., "message": ..., "traceback": ...}}. A role answers
its own commands only (protocol.REQUESTS says whose each is) and "shutdown". Tensors travel as
.npy files in the scratch folder the harness names. Whatever else the process prints goes to
stderr: the protocol owns the real stdout. docs/protocol.md is the contract.

This is plumbing, not a trust boundary: in the tracer, candidate code shares the process and can
write anything to any of its file descriptors. The harness never trusts what a tracer says beyond
the data it hands over (docs/threat_model.md).
"""

from __future__ import annotations

import json
import os
import sys
import traceback

from pallasbench.worker import protocol
from pallasbench.worker.protocol import CommandError


def claim_stdout():
    """Keep the real stdout for the protocol; send fd 1 (stray prints) to stderr."""
    channel = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")  # whatever the locale
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return channel


def serve(handler, channel, hello: dict) -> int:
    """Answer requests from stdin with handler.cmd_<name>(typed request) until shutdown or EOF.
    `handler.ROLE` names the role whose commands it answers."""
    channel.write(encode_reply({"ready": True, "pid": os.getpid(), "role": handler.ROLE} | hello) + "\n")
    for line in sys.stdin:
        if not line.strip():
            continue
        reply = handle(handler, line)
        channel.write(encode_reply(reply) + "\n")
        if reply.get("bye"):
            break
    return 0


def encode_reply(reply: dict) -> str:
    """The reply as one JSON line that any strict reader takes. A candidate's exception message
    can hold lone surrogates ("\\udcff", from bytes decoded with surrogateescape): JSON readers
    other than Python's refuse them, so they become U+FFFD."""
    text = json.dumps(reply, ensure_ascii=False)
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _usage_error(request_id, message: str) -> dict:
    return {"id": request_id, "ok": False, "error": {"kind": "usage_error", "message": message}}


def handle(handler, line: str) -> dict:
    from pallasbench.task import registry

    try:
        req = json.loads(line)
    except json.JSONDecodeError as exc:
        return _usage_error(None, f"the request is not JSON: {exc}")
    if not isinstance(req, dict):
        return _usage_error(None, "a request is a JSON object")
    request_id, command = req.get("id"), req.get("cmd")
    if not isinstance(request_id, int) or isinstance(request_id, bool):
        return _usage_error(None, f"{command}: the request's 'id' must be an integer")
    if command == "shutdown":
        return {"id": request_id, "ok": True, "bye": True}
    request_type = protocol.REQUESTS.get(command) if isinstance(command, str) else None
    if request_type is None or request_type.ROLE != handler.ROLE:
        return _usage_error(request_id, protocol.refusal(handler.ROLE, command))
    try:
        request = request_type.from_json(req)
    except CommandError as exc:  # refused before any work: no traceback to show
        return _usage_error(request_id, str(exc))
    try:
        return {"id": request_id, "ok": True, **getattr(handler, f"cmd_{command}")(request)}
    except CommandError as exc:
        kind, message, failure = exc.kind, str(exc), exc
        lowering = exc.details
    except registry.TaskError as exc:
        kind, message, failure, lowering = "task_error", str(exc), exc, None
    except Exception as exc:  # the process survives anything a kernel or task throws
        kind, message, failure, lowering = "runtime_error", f"{type(exc).__name__}: {exc}", exc, None
    # Formatted from the exception itself: past its except block format_exc() has nothing left
    # ("NoneType: None").
    error = {"kind": kind, "message": message, "traceback": "".join(traceback.format_exception(failure))}
    if lowering:
        error["lowering"] = lowering
    return {"id": request_id, "ok": False, "error": error}
