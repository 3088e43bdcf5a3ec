"""The progress display end to end: on a (pseudo-)terminal `run` draws a live status line below
the task lines (done/total, the busy lanes' tasks and phases, elapsed, ETA), redrawn in place and
cleared at the end; through pipes it prints the plain lines and no escape sequence."""
import fcntl
import os
import re
import select
import struct
import subprocess
import termios
import time

from e2e_support import BINARY, ROOT, run_cli

CLEAR = "\r\x1b[2K"  # back to column 0, erase the line
COLUMNS = 72
PHASES = ("reference", "trace", "compile", "checks", "filters", "artifacts", "timing", "wait")
LIVE = re.compile(r"\[\d/2\] elapsed \d+:\d\d  ETA (--|\d+:\d\d)( \| .*)?")


def run_on_terminal(env, args, timeout=240):
    """The binary with stdout and stderr on a pseudo-terminal of COLUMNS columns (output
    post-processing off, so the bytes are the binary's): its exit code and everything it wrote."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, COLUMNS, 0, 0))
    attrs = termios.tcgetattr(slave)
    attrs[1] &= ~termios.OPOST  # no "\n" -> "\r\n": every "\r" read is the binary's own
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    proc = subprocess.Popen([str(BINARY), *map(str, args)], env={**env, "TERM": "xterm"}, cwd=ROOT,
                            stdin=subprocess.DEVNULL, stdout=slave, stderr=slave)
    os.close(slave)
    chunks, deadline = [], time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            if not select.select([master], [], [], 1)[0]:
                continue
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the binary closed the terminal (it exited)
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
    return proc.wait(timeout=30), b"".join(chunks).decode("utf-8", "replace")


def test_live_line_on_a_terminal(env, tmp_path):
    code, out = run_on_terminal(env, ["run", "relu", "add", "--size", "small", "--device", "cpu", "--no-timing",
                                      "--out", tmp_path])
    assert code == 0, out
    after_clears = out.split(CLEAR)[1:]
    # A draw is what follows a clear up to the next one, unterminated; a clear followed by a line
    # ending in "\n" makes room for a task's plain line (or the summary, once the run is done).
    draws = [text for text in after_clears if text and "\n" not in text]
    assert len(draws) >= 3, out  # drawn, then redrawn in place
    for text in draws:
        assert LIVE.fullmatch(text), text
        assert len(text) <= COLUMNS - 1, text  # never wraps
    assert draws[0].startswith("[0/2] elapsed 0:00  ETA --")
    assert any(re.search(r"ETA \d+:\d\d", text) for text in draws[1:]), draws  # once a task is evaluated
    lanes = [lane for text in draws for lane in text.split(" | ")[1:]]
    assert any(re.fullmatch(r"(relu|add) \(small/mosaic_gpu\) (%s)" % "|".join(PHASES), lane) for lane in lanes), lanes
    # Every task's plain line, whole, on a line of its own (right after a clear).
    plain = [text.split("\n")[0] for text in after_clears if "\n" in text]
    for task in ("relu", "add"):
        assert any(re.fullmatch(r"\[[12]/2\] %s \(small/mosaic_gpu\) ok .* \d+\.\d s" % task, line) for line in plain), plain
    # The end is clean: the last clear is followed by the summary, and no live line after it.
    tail = out.rsplit(CLEAR, 1)[1]
    assert "2 tasks: 2 ok" in tail and "elapsed" not in tail and "\x1b" not in tail, tail
    assert out.endswith("\n")


def test_plain_lines_through_pipes(env, tmp_path):
    result = run_cli(env, "run", "relu", "--size", "small", "--device", "cpu", "--no-timing", "--out", tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"^\[1/1\] relu \(small/mosaic_gpu\) ok .*s$", result.stdout, re.M), result.stdout
    for stream in (result.stdout, result.stderr):
        assert "\x1b" not in stream and "\r" not in stream, repr(stream)
        assert "elapsed" not in stream and "ETA" not in stream


def test_progress_flag_is_checked(env):
    result = run_cli(env, "run", "relu", "--progress", "fancy")
    assert result.returncode == 2
    assert "--progress" in result.stderr and "auto,live,plain" in result.stderr, result.stderr
