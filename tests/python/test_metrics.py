"""pallasbench.fast_p, pass_at_k and to_pandas on synthetic records (python/pallasbench/metrics.py),
and to_pandas on a real H200 records file."""
import itertools
import json
from pathlib import Path

import pytest

import pallasbench

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "records"


def record(task="softmax", passed=True, speedup=None, size="small", request_id=None):
    r = {"kernel_name": task, "size": size, "dtype": "float32", "status": "ok" if passed else "incorrect",
         "passed": passed, "result": {"correctness_passed": passed, "robustness_passed": passed},
         "candidate": {"kind": "user", "path": f"/home/me/{task}_{request_id}.py"}, "config": {"device": "gpu"}}
    if speedup is not None:
        r["timing"] = {"speedup": speedup, "median_us": 10.0, "reference_median_us": 10.0 * speedup, "timer": "cupti"}
    if request_id is not None:
        r["request_id"] = request_id
    return r


def test_fast_p_counts_the_candidates_correct_and_faster_than_p():
    records = [record(speedup=2.0), record(speedup=1.2), record(speedup=0.5), record(passed=False, speedup=3.0)]
    assert pallasbench.fast_p(records, 0) == 0.75  # fast_0: the share correct
    assert pallasbench.fast_p(records, 1.0) == 0.5  # 2.0 and 1.2; the incorrect 3.0 never counts
    assert pallasbench.fast_p(records, 1.5) == 0.25
    assert pallasbench.fast_p(records, 2.0) == 0.0  # strictly faster


def test_fast_p_refuses_records_it_cannot_score():
    with pytest.raises(ValueError, match="1 passed record.*no speedup.*relu"):
        pallasbench.fast_p([record("relu"), record(speedup=2.0)], 1.0)
    assert pallasbench.fast_p([record("relu"), record(speedup=2.0)], 0) == 1.0
    with pytest.raises(ValueError, match="no records"):
        pallasbench.fast_p([], 1.0)


def brute_force_pass_at_k(outcomes: list[bool], k: int) -> float:
    """The share of all k-subsets of the generations holding a correct one: what the estimator
    computes in closed form."""
    subsets = list(itertools.combinations(outcomes, k))
    return sum(any(s) for s in subsets) / len(subsets)


@pytest.mark.parametrize("n, c, k", [(5, 0, 1), (5, 1, 1), (5, 2, 3), (10, 3, 4), (6, 6, 2), (7, 1, 7)])
def test_pass_at_k_is_the_unbiased_estimator(n, c, k):
    records = [record(passed=i < c) for i in range(n)]
    assert pallasbench.pass_at_k(records, k) == pytest.approx(brute_force_pass_at_k([i < c for i in range(n)], k))


def test_pass_at_k_averages_over_tasks_and_refuses_too_few_generations():
    records = [record("softmax", passed=i == 0) for i in range(4)] + [record("relu", passed=True) for _ in range(4)]
    records += [record("relu", size="medium", passed=False) for _ in range(4)]
    per_task = pallasbench.pass_at_k(records, 2, per_task=True)
    assert per_task == pytest.approx({"softmax/small/float32": 0.5, "relu/small/float32": 1.0,
                                      "relu/medium/float32": 0.0})
    assert pallasbench.pass_at_k(records, 2) == pytest.approx(0.5)
    with pytest.raises(ValueError, match=r"fewer than k generations for softmax \(4 < 5\)"):
        pallasbench.pass_at_k(records, 5)


def test_to_pandas_gives_one_row_per_record():
    records = [record(speedup=2.0, request_id="gen-0"), record(passed=False, request_id="gen-1")]
    records += [json.loads(line) for line in (FIXTURES / "gpu_ok.jsonl").read_text().splitlines()]
    frame = pallasbench.to_pandas(records)
    assert len(frame) == len(records)
    assert list(frame["candidate"][:2]) == ["gen-0", "gen-1"]
    assert frame["speedup"][0] == 2.0 and frame["speedup"].isna()[1]
    assert list(frame["passed"][:2]) == [True, False]
    gpu = frame[2:]
    assert (gpu["device"] == "gpu").all() and (gpu["candidate"] == "").all()
    assert gpu["speedup"].notna().all() and (gpu["kernel_us"] > 0).all()
