"""Implementations that run on a GPU only.

A task's Mosaic GPU kernel with several warpgroups synchronising through barriers (a producer
warpgroup issuing TMA, consumer warpgroups issuing wgmma) cannot run in Pallas interpret mode on
the CPU: the harness's interpreter (worker/mosaic_interpret.py) runs one warpgroup a block and
refuses more by name. Such a kernel is marked, so that off the GPU the harness leaves it out and
prefers the task's next implementation (describe's "gpu_only_backends"), instead of running it
into that refusal. The mark changes nothing a kernel computes."""


def gpu_only(fn):
    """Decorator for a BACKENDS function that runs on a GPU only."""
    fn.gpu_only = True
    return fn


def is_gpu_only(fn) -> bool:
    return getattr(fn, "gpu_only", False) is True
