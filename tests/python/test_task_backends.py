"""A task's implementations by Pallas backend (task/registry.py): `kernel` is every task's Triton
implementation, BACKENDS may add Mosaic GPU's; describe lists them preferred first and the tracer
traces the one a job names."""
import types

import pytest

from pallasbench.task import registry


def task(**attributes):
    def kernel(x):
        return x

    return types.SimpleNamespace(NAME="t", kernel=kernel, __file__="tasks/level1/t.py", **attributes)


def test_a_task_without_backends_is_its_triton_kernel():
    t = task()
    assert registry.implementations(t) == {"triton": t.kernel}
    assert registry.implementation(t, None) is t.kernel
    with pytest.raises(registry.TaskError, match="task 't' has no mosaic_gpu implementation"):
        registry.implementation(t, "mosaic_gpu")


def test_declared_backends_come_preferred_first():
    def mosaic(x):
        return x

    t = task()
    t.BACKENDS = {"triton": t.kernel, "mosaic_gpu": mosaic}
    assert list(registry.implementations(t)) == ["mosaic_gpu", "triton"]
    assert registry.implementation(t, "mosaic_gpu") is mosaic


@pytest.mark.parametrize("backends, message", [
    ({}, "non-empty dict"),
    ({"cuda": lambda x: x}, "names 'cuda'"),
    ({"mosaic_gpu": 3}, "is not a function"),
    ({"triton": lambda x: x}, "BACKENDS\\['triton'\\] must be `kernel`"),
])
def test_a_malformed_backends_table_is_refused_naming_the_task(backends, message):
    with pytest.raises(registry.TaskError, match=message):
        registry.implementations(task(BACKENDS=backends))


def test_every_suite_task_describes_its_backends():
    for name in ("relu", "softmax", "matmul"):
        info = registry.describe(registry.load(name))
        assert info["backends"] and info["backends"][-1] == "triton"
        assert set(info["backends"]) <= set(registry.BACKENDS)


def test_a_gpu_only_implementation_is_described_and_never_the_triton_kernel():
    from pallasbench import task as tl

    t = task()
    t.BACKENDS = {"mosaic_gpu": tl.gpu_only(lambda x: x), "triton": t.kernel}
    assert [b for b, fn in registry.implementations(t).items() if getattr(fn, "gpu_only", False)] == ["mosaic_gpu"]
    assert registry.describe(registry.load("matmul"))["gpu_only_backends"] == ["mosaic_gpu"]
    assert registry.describe(registry.load("relu"))["gpu_only_backends"] == []  # interpreted on the CPU
    tl.gpu_only(t.kernel)
    with pytest.raises(registry.TaskError, match="cannot be gpu_only"):
        registry.implementations(t)
