"""Tensors between the harness and a worker: .npy files in the scratch folder the harness names,
and their device copies, placed once per set of files."""

from __future__ import annotations


def load_inputs(paths: list[str], dtypes: list[str] | None = None):
    """The files' arrays; with `dtypes`, each float32 file cast to its array's dtype (a
    low-precision array travels as float32 holding values it represents: lossless)."""
    import numpy as np

    from pallasbench.task.dtypes import numpy_dtype

    # Memory-mapped: device_put reads the file once, with no host copy in between.
    arrays = [np.load(p, allow_pickle=False, mmap_mode="r") for p in paths]
    if dtypes is None:
        return arrays
    return [a.astype(numpy_dtype(d)) if a.dtype == np.float32 and d != "float32" else a
            for a, d in zip(arrays, dtypes)]


def save(path: str, array, dtype: str | None = None) -> dict:
    """Writes `array` to `path`; the reply's description of it: {path, shape, dtype}. An array of
    a low-precision float dtype (or float32 values standing for one, `dtype` given) is written as
    float32, and the description names its own dtype (.npy has no bfloat16)."""
    import numpy as np

    from pallasbench.task.dtypes import LOW_PRECISION

    out = np.asarray(array)
    logical = dtype or out.dtype.name
    if out.dtype.name in LOW_PRECISION:
        out = out.astype(np.float32)
    np.save(path, out, allow_pickle=False)
    return {"path": path, "shape": list(out.shape), "dtype": logical}


class DeviceInputs:
    """Device copies of a set of .npy files, read and placed once per set (timing comes in
    batches); dropped when the process moves on."""

    def __init__(self):
        self._key, self._arrays = None, None

    def get(self, paths, dtypes: list[str] | None = None):
        import jax

        key = (tuple(paths), tuple(dtypes or ()))
        if self._key != key:
            self._key = key
            self._arrays = [jax.device_put(x) for x in load_inputs(paths, dtypes)]
        return self._arrays

    def drop(self):
        self._key, self._arrays = None, None
