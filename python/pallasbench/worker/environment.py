"""What a trusted worker reports of the machine it runs on, in its greeting: the Python, JAX and
Triton versions, the device, the driver and CUDA versions, the folders this interpreter imports
from (a sandboxed tracer is given read access to exactly these), the project's git commit, and,
when JAX cannot start its backend, why in words a user can act on."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path


def environment() -> dict:
    import jax
    import jaxlib

    env = {
        "python": sys.version.split()[0],
        "jax": jax.__version__,
        "jaxlib": jaxlib.__version__,
        "backend": jax.default_backend(),
        "device_kind": jax.devices()[0].device_kind,
        "device_count": jax.device_count(),
        "triton": None,
        "gpu_name": None,
        "driver": None,
        "cuda": None,
        "hostname": os.uname().nodename,
    }
    try:
        import triton

        env["triton"] = triton.__version__
    except ImportError:
        pass
    if env["backend"] == "gpu":
        env["gpu_name"] = env["device_kind"]
        env.update(nvidia_versions())
    return env


def nvidia_versions() -> dict:
    """Driver and CUDA versions as nvidia-smi reports them (None where it cannot say)."""
    try:
        text = subprocess.run(["nvidia-smi"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    driver = re.search(r"Driver Version:\s*([\d.]+)", text)
    cuda = re.search(r"CUDA Version:\s*([\d.]+)", text)
    return {"driver": driver.group(1) if driver else None, "cuda": cuda.group(1) if cuda else None}


def python_paths() -> list[str]:
    """The folders this interpreter imports from: a sandboxed tracer is given read access to
    exactly these (and the system's library folders)."""
    folders = [p for p in sys.path if p] + [sys.prefix, sys.base_prefix, sys.exec_prefix,
                                            str(Path(os.path.realpath(sys.executable)).parent)]
    return sorted({str(Path(p).resolve()) for p in folders if Path(p).is_dir()})


def git_sha(root: Path) -> str | None:
    """The commit checked out at `root`, read from .git itself (no git binary needed)."""
    head = root / ".git" / "HEAD"
    try:
        ref = head.read_text().strip()
        if ref.startswith("ref: "):
            return (root / ".git" / ref[5:]).read_text().strip()
        return ref
    except OSError:
        return None


def backend_failure(exc: BaseException) -> str:
    """Why JAX could not start its backend, in words a user can act on (jax 0.10 says only
    "AssertionError" when JAX_PLATFORMS=cuda finds no CUDA plugin)."""
    import importlib.metadata

    reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    platforms = os.environ.get("JAX_PLATFORMS", "")
    plugins = sorted({d.metadata["Name"] for d in importlib.metadata.distributions()
                      if (d.metadata["Name"] or "").lower().replace("_", "-").startswith("jax-cuda")})
    if "cuda" in platforms and not plugins:
        reason += " (no JAX CUDA plugin is installed: jax-cuda12-plugin or jax-cuda13-plugin)"
    elif "cuda" in platforms:
        reason += f" (installed: {', '.join(plugins)}; is a GPU visible, is the driver loaded?)"
    return f"JAX_PLATFORMS={platforms}: {reason}" if platforms else reason
