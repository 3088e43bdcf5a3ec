"""A record's triton_code bundles every shared kernel module (pallasbench.kernels.*) that a kernel
file runs: the ones it imports and, transitively, the ones they import."""

import json
import os
import subprocess
import sys
from pathlib import Path

from pallasbench.worker.sources import _kernel_imports, bundled_source, kernel_modules_used
from pallasbench.task import registry

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ROOT / "python" / "pallasbench" / "kernels"


def headers(bundle: str) -> list[str]:
    return [line for line in bundle.splitlines() if line.startswith("# ---- pallasbench.kernels.")]


def test_every_import_form_is_found():
    source = ("from pallasbench.kernels import elementwise\n"
              "import pallasbench.kernels.online_attention\n"
              "from pallasbench.kernels.tiled_matmul import fused_matmul\n")
    assert kernel_modules_used(source) == ["elementwise", "fused_matmul_mosaic", "masked", "mosaic_matmul",
                                           "online_attention", "tiled_matmul", "weight_pack"]


def test_relative_imports_count_inside_the_kernels_package_only():
    source = "from . import masked\nfrom .rowwise import RowBlock\n"
    assert _kernel_imports(source, inside_kernels=True) == {"masked", "rowwise"}
    assert _kernel_imports(source) == set()  # a task file's "." is not the kernels package


def test_imports_of_imports_are_bundled_once_in_name_order():
    """reductions imports rowwise and masked, rowwise imports masked: three modules, once each."""
    source = "from pallasbench.kernels import reductions, rowwise\ndef kernel(x):\n    return x\n"
    bundle = bundled_source(source)
    assert bundle.startswith(source)
    assert headers(bundle) == [f"# ---- pallasbench.kernels.{n} ----" for n in ("masked", "reductions", "rowwise")]
    for name in ("masked", "reductions", "rowwise"):
        assert (KERNELS / f"{name}.py").read_text() in bundle
    assert bundled_source(source) == bundle  # deterministic


def test_unknown_modules_and_unparsable_sources_bundle_nothing():
    assert kernel_modules_used("from pallasbench.kernels import no_such_module\n") == []
    assert kernel_modules_used("import pallasbench.kernels\n") == []
    assert kernel_modules_used("def kernel(x)\n    return x\n") == []
    assert bundled_source("x = 1\n") == "x = 1\n"


def test_the_bundle_is_what_importing_loads():
    """For every task file, the modules the syntax-tree scan bundles are exactly the
    pallasbench.kernels modules that importing the file loads (forgotten between files)."""
    script = """
import json, sys
import pallasbench.kernels
from pallasbench.task import registry
loaded = {}
for name, task in sorted(registry.discover().items()):
    for m in [m for m in sys.modules if m.startswith("pallasbench.kernels.")]:
        del sys.modules[m]
        delattr(pallasbench.kernels, m.split(".")[2])  # else `from pallasbench.kernels import m` finds it
    registry.import_file(task.path, f"bundling_{name}")
    loaded[name] = sorted(m.split(".")[2] for m in sys.modules if m.startswith("pallasbench.kernels."))
print(json.dumps(loaded))
"""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python"), "JAX_PLATFORMS": "cpu"}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    loaded = json.loads(out.stdout.splitlines()[-1])
    tasks = registry.discover()
    assert sorted(loaded) == sorted(tasks)
    for name, task in tasks.items():
        assert kernel_modules_used(task.path.read_text()) == loaded[name], name
    assert any(len(modules) > 1 for modules in loaded.values())  # some bundles are transitive


def test_task_families_import_no_kernel_module():
    """pallasbench.task.families is not bundled into a record's triton_code: a family module that
    imported a kernel module would run kernel code the record does not hold (kernel code shared
    between tasks belongs in pallasbench.kernels, which is bundled)."""
    families = sorted((ROOT / "python" / "pallasbench" / "task" / "families").glob("*.py"))
    assert len(families) > 1
    for path in families:
        assert kernel_modules_used(path.read_text()) == [], path.name
