"""A headless Chromium driven over its DevTools pipe (--remote-debugging-pipe: JSON messages ended by
a NUL byte, read on fd 3 and written on fd 4): set the viewport, open a page, evaluate script in it
and take screenshots. No client library: the protocol's few commands used here are sent as is."""
from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

CHROMIUM = "chromium-headless-shell"


class Browser:
    def __init__(self):
        found = shutil.which(CHROMIUM)
        if not found:
            raise RuntimeError(f"{CHROMIUM} is missing: `make test-deps` installs it")
        to_browser_read, self._to_browser = os.pipe()
        self._from_browser, from_browser_write = os.pipe()

        def descriptors():  # the pipe's ends at the numbers Chromium reads and writes, kept open by exec
            read, write = os.dup(to_browser_read), os.dup(from_browser_write)  # above 4: neither is overwritten
            os.dup2(read, 3, inheritable=True)
            os.dup2(write, 4, inheritable=True)

        self._process = subprocess.Popen(
            [found, "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--remote-debugging-pipe", "about:blank"],
            preexec_fn=descriptors, close_fds=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_read)
        os.close(from_browser_write)
        self._buffer = b""
        self._next_id = 0
        targets = self._send("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self._session = self._send("Target.attachToTarget", targetId=page["targetId"], flatten=True)["sessionId"]

    def _send(self, method: str, session: str | None = None, **params) -> dict:
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            while b"\0" in self._buffer:
                raw, self._buffer = self._buffer.split(b"\0", 1)
                reply = json.loads(raw)
                if reply.get("id") == self._next_id:
                    if "error" in reply:
                        raise RuntimeError(f"{method}: {reply['error']}")
                    return reply.get("result", {})
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise RuntimeError(f"{method}: the browser closed its pipe")
            self._buffer += chunk
        raise TimeoutError(method)

    def page(self, method: str, **params) -> dict:
        return self._send(method, self._session, **params)

    def open(self, path: Path, width: int, height: int, fragment: str = "") -> None:
        self.page("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)
        self.page("Page.navigate", url=path.resolve().as_uri() + fragment)
        for _ in range(600):
            if self.evaluate("document.readyState") == "complete":
                return
            time.sleep(0.1)
        raise TimeoutError(f"{path} did not load")

    def evaluate(self, expression: str):
        result = self.page("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:80]}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, out: Path) -> None:
        out.write_bytes(base64.b64decode(self.page("Page.captureScreenshot", format="png")["data"]))

    def close(self) -> None:
        try:
            self._send("Browser.close")
        except (RuntimeError, OSError):
            pass
        try:
            self._process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)
