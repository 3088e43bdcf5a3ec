"""pallasbench.task.dtypes and the tensors that carry low-precision arrays between processes."""
import types

import ml_dtypes
import numpy as np
import pytest

from pallasbench import task as tl
from pallasbench.task import dtypes
from pallasbench.worker import tensors


def test_rounding_is_to_nearest_even_and_stays_float32():
    # bfloat16 keeps 8 bits of significand: 1 + 2^-8 is halfway between 1 and 1 + 2^-7 (ties to even: 1),
    # 1 + 3 * 2^-8 is halfway between 1 + 2^-7 and 1 + 2^-6 (ties to even: 1 + 2^-6).
    x = np.array([1 + 2**-8, 1 + 3 * 2**-8, 1 + 2**-8 + 2**-20, -2.5], np.float32)
    got = dtypes.round_to(x, "bfloat16")
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, [1.0, 1 + 2**-6, 1 + 2**-7, -2.5])
    np.testing.assert_array_equal(got, x.astype(ml_dtypes.bfloat16).astype(np.float32))
    np.testing.assert_array_equal(dtypes.round_to(x, "float16"), x.astype(np.float16).astype(np.float32))
    assert dtypes.round_to(x, "float32") is x
    ints = np.arange(4, dtype=np.int32)
    assert dtypes.round_to(ints, "bfloat16") is ints  # integer inputs keep their types


def test_the_output_follows_the_float_inputs():
    assert dtypes.output_at_dtype("float32", ["float32", "int32"], "bfloat16") == "bfloat16"
    assert dtypes.output_at_dtype("float32", ["uint8"], "bfloat16") == "float32"  # one_hot, genomics
    assert dtypes.output_at_dtype("int32", ["float32"], "float16") == "int32"


def module(tolerance, declared=None):
    m = types.SimpleNamespace(NAME="t", TOLERANCE=tolerance)
    if declared is not None:
        m.LOW_PRECISION_TOLERANCE = declared
    return m


def test_tolerances_by_dtype():
    found = dtypes.tolerances(module(tl.ELEMENTWISE))
    assert found["float32"] == tl.ELEMENTWISE.as_dict()
    assert found["bfloat16"] == {"atol": 1e-2, "rtol": 1e-2, "rel_norm": 1e-2}
    assert found["float16"] == {"atol": 2e-3, "rtol": 2e-3, "rel_norm": 2e-3}
    exact = dtypes.tolerances(module(tl.EXACT))
    assert exact["bfloat16"] == exact["float16"] == tl.EXACT.as_dict()  # exact stays exact
    # No float input (gc_content: uint8 bases in, float32 out): the same run at every dtype.
    unchanged = dtypes.tolerances(module(tl.ELEMENTWISE), ["uint8"])
    assert unchanged["bfloat16"] == unchanged["float16"] == tl.ELEMENTWISE.as_dict()
    assert dtypes.tolerances(module(tl.ELEMENTWISE), ["float32", "int32"])["bfloat16"] == dtypes.BOUNDS["bfloat16"].as_dict()
    stricter = tl.Tolerance(5e-3, 5e-3, 1e-3)
    assert dtypes.tolerances(module(tl.MATMUL, {"bfloat16": stricter}))["bfloat16"] == stricter.as_dict()
    with pytest.raises(ValueError, match=r"task 't': LOW_PRECISION_TOLERANCE\[float16\] .* looser"):
        dtypes.tolerances(module(tl.MATMUL, {"float16": tl.Tolerance(1e-2, 1e-3, 1e-3)}))


def test_views_are_the_task_at_each_dtype_whole():
    """What the harness reads for a dtype (C++ derives nothing): bound, input and output dtypes,
    the byte model where there is one at that dtype."""
    bytes_at = {"float32": {"small": 8}, "bfloat16": {"small": 4}}
    views = dtypes.views(module(tl.ELEMENTWISE), {"x": "float32", "i": "int32"}, "float32", bytes_at)
    assert set(views) == set(dtypes.DTYPES)
    assert views["bfloat16"] == {"tolerance": dtypes.BOUNDS["bfloat16"].as_dict(),
                                 "dtypes": {"x": "bfloat16", "i": "int32"}, "output_dtype": "bfloat16",
                                 "bytes": {"small": 4}}
    assert "bytes" not in views["float16"]  # no model there: no figure, never float32's
    assert views["float32"]["bytes"] == {"small": 8} and views["float32"]["tolerance"] == tl.ELEMENTWISE.as_dict()
    # No float input: the output keeps its type and the bound stays float32's at every dtype.
    bases = dtypes.views(module(tl.ELEMENTWISE), {"x": "uint8"}, "float32", {"float32": None})
    assert bases["float16"] == {"tolerance": tl.ELEMENTWISE.as_dict(), "dtypes": {"x": "uint8"}, "output_dtype": "float32"}


def test_low_precision_arrays_travel_as_float32_files(tmp_path):
    x = np.array([[1.5, -0.375], [3.0, 1e-3]], np.float32).astype(ml_dtypes.bfloat16)
    described = tensors.save(str(tmp_path / "x.npy"), x)
    assert described["dtype"] == "bfloat16" and described["shape"] == [2, 2]
    assert np.load(tmp_path / "x.npy").dtype == np.float32
    [back] = tensors.load_inputs([str(tmp_path / "x.npy")], ["bfloat16"])
    assert back.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(back.astype(np.float32), x.astype(np.float32))
    rounded = dtypes.round_to(np.float32([0.1, 0.2]), "float16")  # float32 values standing for float16
    assert tensors.save(str(tmp_path / "y.npy"), rounded, "float16")["dtype"] == "float16"
    [y] = tensors.load_inputs([str(tmp_path / "y.npy")], ["float16"])
    assert y.dtype == np.float16 and np.array_equal(y.astype(np.float32), rounded)


def test_describe_has_bytes_at_2_byte_dtypes_only_where_the_model_takes_the_size():
    from pallasbench.task import registry

    def bytes_moved(shapes, itemsize=4):
        return 2 * shapes["x"][0] * itemsize

    sized = types.SimpleNamespace(SHAPES={s: {"x": (n,)} for s, n in (("small", 8), ("medium", 16), ("large", 32))},
                                  bytes_moved=bytes_moved)
    assert registry.bytes_by_dtype(sized) == {d: {"small": 32, "medium": 64, "large": 128}
                                               for d in ("bfloat16", "float16")}
    sized.bytes_moved = lambda shapes: 8
    assert registry.bytes_by_dtype(sized) == {}
