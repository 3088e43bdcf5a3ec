"""A worker role as its own process, spoken to over the protocol (docs/protocol.md): for the
tests that drive the real tracer, executor and reference without the C++ harness."""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "python"), "JAX_PLATFORMS": "cpu"}


class Process:
    def __init__(self, role: str, *args: str, cwd: Path | None = None):
        self.proc = subprocess.Popen([sys.executable, "-m", f"pallasbench.worker.{role}", *args], env=ENV, text=True,
                                     cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.hello = json.loads(self.proc.stdout.readline())
        self.next_id = 1

    def call(self, **request):
        """The reply to `request` (its id checked against the request's)."""
        request["id"] = self.next_id
        self.next_id += 1
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        reply = json.loads(self.proc.stdout.readline())
        assert reply["id"] == request["id"]
        return reply

    def close(self):
        self.call(cmd="shutdown")
        self.proc.wait(timeout=30)
