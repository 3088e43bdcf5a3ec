"""The JSON-lines protocol every harness process speaks: `python -m pallasbench.<role>`.

A process announces itself with {"ready": true, ...}, then answers each request
{"id": n, "cmd": ...} with {"id": n, "ok": true, ...} or
{"id": n, "ok": false, "error": {"kind": ..., "message": ..., "traceback": ...}}. Tensors travel
as .npy files in the scratch folder the harness names. Whatever else the process prints goes to
stderr: the protocol owns the real stdout.

This is plumbing, not a trust boundary: in the tracer, candidate code shares the process and can
write anything to any of its file descriptors. The harness never trusts what a tracer says beyond
the data it hands over (docs/threat_model.md).
"""

from __future__ import annotations

import json
import os
import sys
import traceback


class CommandError(Exception):
    """A failure to report with its kind: compile_error, runtime_error, task_error, usage_error."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


def claim_stdout():
    """Keep the real stdout for the protocol; send fd 1 (stray prints) to stderr."""
    protocol = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")  # whatever the locale
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return protocol


def serve(handler, protocol, hello: dict) -> int:
    """Answer requests from stdin with handler.cmd_<name>(request) until shutdown or EOF."""
    protocol.write(json.dumps({"ready": True, "pid": os.getpid()} | hello) + "\n")
    for line in sys.stdin:
        if not line.strip():
            continue
        reply = handle(handler, line)
        protocol.write(encode_reply(reply) + "\n")
        if reply.get("bye"):
            break
    return 0


def encode_reply(reply: dict) -> str:
    """The reply as one JSON line that any strict reader takes. A candidate's exception message
    can hold lone surrogates ("\\udcff", from bytes decoded with surrogateescape): JSON readers
    other than Python's refuse them, so they become U+FFFD."""
    text = json.dumps(reply, ensure_ascii=False)
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def handle(handler, line: str) -> dict:
    from pallasbench.task import registry

    try:
        req = json.loads(line)
    except json.JSONDecodeError as exc:
        return {"id": None, "ok": False, "error": {"kind": "usage_error", "message": str(exc)}}
    if req.get("cmd") == "shutdown":
        return {"id": req.get("id"), "ok": True, "bye": True}
    method = getattr(handler, f"cmd_{req.get('cmd')}", None)
    if method is None:
        return {"id": req.get("id"), "ok": False,
                "error": {"kind": "usage_error", "message": f"unknown command {req.get('cmd')!r}"}}
    try:
        return {"id": req.get("id"), "ok": True, **method(req)}
    except CommandError as exc:
        kind, message, failure = exc.kind, str(exc), exc
    except registry.TaskError as exc:
        kind, message, failure = "task_error", str(exc), exc
    except Exception as exc:  # the process survives anything a kernel or task throws
        kind, message, failure = "runtime_error", f"{type(exc).__name__}: {exc}", exc
    # Formatted from the exception itself: past its except block format_exc() has nothing left
    # ("NoneType: None").
    return {"id": req.get("id"), "ok": False,
            "error": {"kind": kind, "message": message,
                      "traceback": "".join(traceback.format_exception(failure))}}
