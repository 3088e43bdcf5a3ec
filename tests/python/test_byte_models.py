"""Every task's byte model at a float element size: bytes_moved(shapes, itemsize) (docs/dtypes.md,
"The roofline at a dtype").

tests/fixtures/byte_models/float32_bytes.json holds each task's bytes_moved at every size as the
float32-only models gave it before the models took `itemsize` (dumped from the task files at
7780f21): at itemsize=4 every model must still give exactly those numbers.
"""

import inspect
import json
from pathlib import Path

import pytest

from pallasbench.task import registry
from pallasbench.task.dtypes import FLOAT32
from pallasbench.task.shapes import SIZE_NAMES

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "byte_models" / "float32_bytes.json"
FLOAT32_BYTES = json.loads(FIXTURE.read_text())
TASKS = sorted(registry.discover())


@pytest.fixture(scope="module", params=TASKS)
def task(request):
    return registry.load(request.param)


def _has_float_input(task) -> bool:
    return FLOAT32 in registry._input_dtypes(task).values()


def test_fixture_names_every_task():
    assert sorted(FLOAT32_BYTES) == TASKS
    assert all(sorted(sizes) == sorted(SIZE_NAMES) for sizes in FLOAT32_BYTES.values())


def test_model_takes_the_float_element_size(task):
    params = inspect.signature(task.bytes_moved).parameters
    assert "itemsize" in params and params["itemsize"].default == 4, task.NAME
    assert set(registry.bytes_by_dtype(task)) == {"bfloat16", "float16"}


def test_float32_count_is_unchanged(task):
    for size in SIZE_NAMES:
        shapes = task.SHAPES[size]
        want = FLOAT32_BYTES[task.NAME][size]
        assert task.bytes_moved(shapes) == want, (task.NAME, size)
        assert task.bytes_moved(shapes, itemsize=4) == want, (task.NAME, size)


def test_two_byte_count_is_smaller_exactly_when_a_float_is_moved(task):
    """A task with a float input moves its floats at 2 bytes: strictly fewer bytes. A task with
    none (genomics bases, ids) moves the same bytes at every dtype: its integers keep their size
    and a float output stays float32 (dtypes.output_at_dtype)."""
    floats = _has_float_input(task)
    for size in SIZE_NAMES:
        shapes = task.SHAPES[size]
        wide, narrow = task.bytes_moved(shapes, itemsize=4), task.bytes_moved(shapes, itemsize=2)
        assert isinstance(narrow, int) and narrow > 0
        if floats:
            assert narrow < wide, (task.NAME, size)
        else:
            assert narrow == wide, (task.NAME, size)


# Hand-checked 2-byte counts at SMALL.
HAND_CHECKED = {
    # x (512, 512) and y read, the output written: 3 * 512 * 512 * 2
    "add": 1_572_864,
    # a (256, 256), b (256, 256), out (256, 256) at 2 bytes: 3 * 65536 * 2
    "matmul": 393_216,
    # 128 int32 ids (4 bytes) + 128 table rows of 256 read and 128 x 256 written at 2 bytes
    "embedding_lookup": 128 * 4 + 2 * 128 * 256 * 2,
    # logits (128, 512) and 128 losses at 2 bytes, 128 int32 labels at 4
    "cross_entropy": (128 * 512 + 128) * 2 + 128 * 4,
    # x (512, 512) and out at 2 bytes, the uint8 keep mask at 1, b (512,) at 2
    "fused_bias_gelu_dropout": 512 * 512 * (2 + 1 + 2) + 512 * 2,
    # uint8 seqs (16, 1024) at 1 byte, 16 float32 fractions at 4: as at float32
    "gc_content": 16 * 1024 + 16 * 4,
    # uint8 seq (1024,) at 1 byte, the float32 (1024, 4) one-hot at 4: as at float32
    "nucleotide_onehot": 1024 + 1024 * 4 * 4,
    # float one-hot seq (256, 4), pwm (4, 8), 249 window scores, all at 2 bytes
    "pwm_scan": (256 * 4 + 4 * 8 + 249) * 2,
}


@pytest.mark.parametrize("name", sorted(HAND_CHECKED))
def test_hand_checked_two_byte_counts(name):
    task = registry.load(name)
    assert task.bytes_moved(task.SHAPES["small"], itemsize=2) == HAND_CHECKED[name]
    assert registry.bytes_by_dtype(task)["bfloat16"]["small"] == HAND_CHECKED[name]


def test_matmul_two_byte_count_at_every_size():
    task = registry.load("matmul")
    for size in SIZE_NAMES:
        (m, k), (_, n) = task.SHAPES[size]["a"], task.SHAPES[size]["b"]
        assert task.bytes_moved(task.SHAPES[size], itemsize=2) == 2 * (m * k + k * n + m * n)
        assert task.bytes_moved(task.SHAPES[size], itemsize=2) * 2 == FLOAT32_BYTES["matmul"][size]
