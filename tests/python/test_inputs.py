"""Input generation at scale: large arrays drawn in fixed chunks from spawned streams (the same
numbers whatever the thread count, the declared distribution), float32 perturbation within the
domain, and the reference process making each (task, size, seed) set once per evaluation."""
from pathlib import Path

import numpy as np
import pytest

from pallasbench.task import domains, registry
from pallasbench.worker import reference as reference_role
from pallasbench.worker.protocol import ReferenceRequest

SHAPE = (2100, 4096)  # 8.6 M elements: three chunks, the last one partial


@pytest.fixture()
def threads():
    yield domains.set_threads
    domains.set_threads(None)


def test_a_seed_draws_the_same_numbers_whatever_the_thread_count(threads):
    threads(1)
    one = domains.normal(np.random.default_rng(5), SHAPE, 2.0)
    threads(3)
    three = domains.normal(np.random.default_rng(5), SHAPE, 2.0)
    np.testing.assert_array_equal(one, three)
    assert one.dtype == np.float32 and one.shape == SHAPE
    assert not np.array_equal(one, domains.normal(np.random.default_rng(6), SHAPE, 2.0))
    flat = one.reshape(-1)
    # Each chunk has its own stream: no chunk repeats another.
    assert not np.array_equal(flat[:1000], flat[domains.CHUNK:domains.CHUNK + 1000])
    # N(0, 2^2), chunk by chunk.
    for start in range(0, flat.size, domains.CHUNK):
        part = flat[start:start + domains.CHUNK].astype(np.float64)
        assert abs(part.mean()) < 0.01 and abs(part.std() - 2.0) < 0.01


def test_small_arrays_come_from_the_generator_itself():
    np.testing.assert_array_equal(domains.normal(np.random.default_rng(3), (64, 64)),
                                  np.random.default_rng(3).standard_normal((64, 64), dtype=np.float32))


def test_uniform_stays_in_its_interval(threads):
    threads(2)
    u = domains.uniform(np.random.default_rng(1), SHAPE, 0.25, 0.5)
    # float64 draws rounded to float32, as before chunking: the top value can round to `high`.
    assert u.dtype == np.float32 and u.min() >= 0.25 and u.max() <= 0.5
    threads(1)
    np.testing.assert_array_equal(u, domains.uniform(np.random.default_rng(1), SHAPE, 0.25, 0.5))


def test_std_is_numpys():
    x = domains.normal(np.random.default_rng(2), SHAPE, 3.0) + np.float32(1.5)
    assert domains._std(x) == pytest.approx(float(np.std(x.astype(np.float64))), rel=1e-9)


@pytest.mark.parametrize("domain", [domains.REAL, domains.POSITIVE, domains.UNIT])
def test_float32_perturbation_stays_in_its_domain_with_its_noise(domain, threads):
    rng = np.random.default_rng(4)
    x = {domains.REAL: domains.normal(rng, SHAPE, 3.0),
         domains.POSITIVE: domains.uniform(rng, SHAPE, 0.5, 2.0),
         domains.UNIT: domains.uniform(rng, SHAPE, 0.0, 1.0)}[domain]
    x.flags.writeable = False  # the reference's kept sets are read-only: perturb copies
    threads(1)
    y = domains.perturb(np.random.default_rng([9, 7919, 0]), x, domain)
    threads(4)
    np.testing.assert_array_equal(y, domains.perturb(np.random.default_rng([9, 7919, 0]), x, domain))
    assert y.dtype == np.float32 and y.shape == x.shape and not np.array_equal(x, y)
    if domain == domains.REAL:
        assert np.std((y - x).astype(np.float64)) == pytest.approx(domains.PERTURB_NOISE * 3.0, rel=0.01)
    elif domain == domains.POSITIVE:
        assert y.min() > 0
        assert np.std(np.log(y.astype(np.float64) / x)) == pytest.approx(domains.PERTURB_NOISE, rel=0.01)
    else:
        assert y.min() >= 0 and y.max() <= 1
        inside = (y > 0) & (y < 1)
        assert np.std((y - x)[inside].astype(np.float64)) == pytest.approx(domains.PERTURB_NOISE, rel=0.05)


def evaluation_requests(task: str, inputs: int, seeds: int = 3):
    """The reference requests of one evaluation, in the evaluator's order (evaluator_checks.cpp,
    evaluator_timing.cpp): the check seeds, a stress case, each input perturbed on the first
    check seed's inputs, the timing set."""
    requests = [{"seed": 100 + i} for i in range(seeds)]
    requests += [{"seed": 555, "stress": "tiny"}]
    requests += [{"seed": 100, "perturb": i} for i in range(inputs)]
    requests += [{"seed": 999}]
    return [{"task": task, "size": "small", **r} for r in requests]


def test_the_reference_makes_each_input_set_once_per_evaluation(tmp_path, monkeypatch):
    module = registry.load("add")
    made = []
    original = module.make_inputs

    def counting(rng, shapes):
        made.append(rng.bit_generator.seed_seq.entropy)
        return original(rng, shapes)

    monkeypatch.setattr(module, "make_inputs", counting)
    ref = reference_role.Reference()
    replies = []
    for i, fields in enumerate(evaluation_requests("add", 2)):
        (tmp_path / str(i)).mkdir()
        replies.append(ref.cmd_reference(ReferenceRequest.read(fields | {"dir": str(tmp_path / str(i))})))
    # seeds 100, 101, 102, the stress case's own draw, the timing set: 100 is not made again.
    assert made == [100, 101, 102, 555, 999]
    base = [np.load(a["path"]) for a in replies[0]["inputs"]]
    perturbed_x = [np.load(a["path"]) for a in replies[4]["inputs"]]
    np.testing.assert_array_equal(perturbed_x[1], base[1])  # y unchanged when x is perturbed
    assert not np.array_equal(perturbed_x[0], base[0])
    kept = ref._base_inputs(module, "small", 100)
    assert all(not a.flags.writeable for a in kept)


def test_kept_sets_stay_within_the_memory_budget(tmp_path, monkeypatch):
    module = registry.load("relu")
    one_set = 512 * 512 * 4
    monkeypatch.setattr(reference_role, "KEPT_INPUT_BYTES", 2 * one_set)
    ref = reference_role.Reference()
    for seed in (1, 2, 3):
        ref._base_inputs(module, "small", seed)
    assert [k[2] for k in ref._inputs] == [2, 3]  # least recently used out first
    ref._base_inputs(module, "medium", 1)
    assert list(ref._inputs) == [("relu", "medium", 1)]  # another size: the others are not asked again


def test_inputs_only_then_the_output_draws_once_and_writes_once(tmp_path, monkeypatch):
    """The harness asks for a request's inputs alone (host work, holding no device lease), then
    for the same request's output: the second request draws nothing and rewrites no file, and
    both name the same inputs; another request's fields in between are not taken for them."""
    module = registry.load("add")
    made = []
    original = module.make_inputs
    monkeypatch.setattr(module, "make_inputs", lambda rng, shapes: made.append(1) or original(rng, shapes))
    ref = reference_role.Reference()
    fields = {"task": "add", "size": "small", "seed": 5, "dir": str(tmp_path)}
    first = ref.cmd_reference(ReferenceRequest.read(fields | {"inputs_only": True}))
    assert set(first) == {"inputs"} and not (tmp_path / "ref.npy").exists()
    stamps = [Path(a["path"]).stat().st_mtime_ns for a in first["inputs"]]
    second = ref.cmd_reference(ReferenceRequest.read(fields))
    assert made == [1]
    assert second["inputs"] == first["inputs"]
    assert [Path(a["path"]).stat().st_mtime_ns for a in second["inputs"]] == stamps
    x, y = (np.load(a["path"]) for a in second["inputs"])
    np.testing.assert_allclose(np.load(second["output"]["path"]), x + y, rtol=1e-6)
    # Inputs kept for one request are never the answer to another (here: another seed).
    ref.cmd_reference(ReferenceRequest.read(fields | {"inputs_only": True}))
    other = ref.cmd_reference(ReferenceRequest.read(fields | {"seed": 6}))
    assert not np.array_equal(np.load(other["inputs"][0]["path"]), x)
