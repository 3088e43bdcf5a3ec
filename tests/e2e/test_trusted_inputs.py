"""Inputs nobody can predict and timing that cannot be faked (docs/threat_model.md): seeds from
OS entropy per evaluation and reproducible with --seed, a timing input set of its own with every
batch's last output rechecked, and the roofline floor."""
import json
from pathlib import Path

from e2e_support import ROOT, run_cli

ADVERSARIAL = ROOT / "tests" / "adversarial"
SLOW_DEVICE = ROOT / "tests" / "fixtures" / "ceilings" / "slow_device.json"


def eval_json(env, task, candidate, *args):
    result = run_cli(env, "eval", "--task", task, "--candidate", ADVERSARIAL / candidate, "--device", "cpu",
                     "--json", *args, timeout=600)
    assert result.stdout.strip(), result.stderr
    return json.loads(result.stdout), result


def test_two_runs_draw_different_seeds(env, tmp_path):
    records = []
    for name in ("a", "b"):
        result = run_cli(env, "run", "relu", "--device", "cpu", "--out", tmp_path / name, timeout=600)
        assert result.returncode == 0, result.stderr
        records.append(json.loads((tmp_path / name / "records.jsonl").read_text()))
    a, b = records
    for r in records:
        assert r["seed"]["source"] == "os_entropy"
        checked = set(r["seeds"]) | {s["seed"] for s in r["correctness"]["stress"]}
        assert len(checked) == len(r["seeds"]) + len(r["correctness"]["stress"])  # all distinct
        assert r["timing"]["inputs_seed"] not in checked  # timing never reuses a checked set
    assert a["seed"]["seed"] != b["seed"]["seed"]
    assert not set(a["seeds"]) & set(b["seeds"])
    assert a["timing"]["inputs_seed"] != b["timing"]["inputs_seed"]


def test_a_given_seed_reproduces_the_verdict_and_errors_exactly(env):
    """The same --seed twice: the same seeds, the same verdict, and the same errors to the last
    bit, here on a candidate that fails a stress case (its record carries real errors)."""
    runs = [eval_json(env, "layernorm", "layernorm_naive_variance.py", "--seed", "4242", "--no-timing")[0]
            for _ in range(2)]
    first, second = runs
    assert first["seed"] == {"seed": 4242, "source": "given"}
    assert first["seeds"] == second["seeds"]
    assert first["status"] == second["status"] == "incorrect"
    assert first["error"]["message"] == second["error"]["message"]
    assert first["correctness"] == second["correctness"]
    other = eval_json(env, "layernorm", "layernorm_naive_variance.py", "--seed", "4243", "--no-timing")[0]
    assert other["seeds"] != first["seeds"] and other["correctness"] != first["correctness"]


def test_a_seed_out_of_range_is_a_usage_error(env):
    result = run_cli(env, "eval", "--task", "relu", "--candidate", ADVERSARIAL / "relu_copy.py", "--seed",
                     str(1 << 53), "--device", "cpu")
    assert result.returncode == 2 and "below 2^53" in result.stderr


def test_a_known_seed_table_is_timed_honestly(env):
    """reduce_sum_seed_table.py answers the inputs of seeds 0-4 from a table. With fresh seeds
    the table never hits: it is checked and timed on its honest path, and every timed batch's
    last output matches the timing inputs' reference."""
    record, result = eval_json(env, "reduce_sum", "reduce_sum_seed_table.py")
    assert record["status"] == "ok" and record["result"]["robustness_passed"], record["error"]
    assert not set(record["seeds"]) & set(range(5))
    timing = record["timing"]
    assert timing["recheck"]["passed"] and timing["recheck"]["batches"] >= 1, timing["recheck"]
    assert timing["recheck"]["batches"] * 1 <= timing["samples"]
    assert timing["inputs_seed"] not in record["seeds"]


def test_a_kernel_that_answers_differently_under_timing_fails(env):
    """reduce_sum_timing_differs.py knows every checked input of --seed 20261201 (an attacker
    who learned the seed) and returns zeros for anything else: the checks pass, the recheck of
    the first timed batch does not."""
    record, result = eval_json(env, "reduce_sum", "reduce_sum_timing_differs.py", "--seed", "20261201")
    assert result.returncode == 1
    assert all(s["passed"] for s in record["correctness"]["seeds"] + record["correctness"]["stress"])
    assert record["result"]["robustness_passed"] is True  # every filter passed before timing
    assert record["status"] == "incorrect"
    assert record["error"]["phase"] == "time"
    assert "differs under timing" in record["error"]["message"], record["error"]


def test_a_time_under_the_floor_is_rejected(env):
    """With ceilings (--ceilings) a thousand times below what this CPU does, every sample beats
    the floor: timing_rejected, "faster than the hardware allows", and the record says which
    bound and which ceilings. (On the H200, relu_stale_output.py gets there with the ceilings
    the run measures: bench/adversarial_gpu.sh.)"""
    record, result = eval_json(env, "relu", "relu_stale_output.py", "--ceilings", SLOW_DEVICE)
    assert result.returncode == 1
    assert record["status"] == "timing_rejected", record["error"]
    assert "faster than the hardware allows" in record["error"]["message"]
    floor = record["timing"]["floor"]
    assert floor["applied"] and floor["passed"] is False and floor["bound"] == "bytes"
    assert floor["samples_below"] == record["timing"]["samples"]
    assert floor["ceilings"]["source"] == str(SLOW_DEVICE)
    assert record["environment"]["ceilings_file"]["path"] == str(SLOW_DEVICE)


def test_on_the_cpu_the_record_says_why_launches_and_floor_were_not_checked(env):
    record, _ = eval_json(env, "relu", "relu_stale_output.py")
    assert record["status"] == "ok", record["error"]
    launch, floor = record["timing"]["launch_check"], record["timing"]["floor"]
    assert launch["applicable"] is False and "wall-clock" in launch["reason"]
    assert floor["applied"] is False and "--ceilings" in floor["reason"]
