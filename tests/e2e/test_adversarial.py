"""Adversarial corpus for the robustness filters: `pallasbench eval` on degenerate and honest
candidates (tests/adversarial/), each with the verdict a kernel engineer would give.

Degenerate candidates must come out with robustness_passed False and with at least the named
filters failing; honest ones must come out correct with every filter passing. The exit code
is 0 exactly when the candidate is correct and robust.

Each case's comment says what a plain allclose check against the reference would conclude
(it passes exactly when the status here is `ok`): the degenerate cases marked "allclose
passes" are the ones only the robustness filters can catch.
"""
import json
from pathlib import Path

import pytest

from e2e_support import run_cli
from pallasbench import filters as registered_filters

ADVERSARIAL = Path(__file__).resolve().parents[1] / "adversarial"

# (candidate file, task, expected status, expected robustness_passed, filters that must fail)
CASES = [
    # ---- degenerate -------------------------------------------------------------------------
    # (a) copy kernels. No task is close enough to an identity for a copy to pass at SMALL.
    # allclose fails (half the elements are negatives that relu zeroes).
    ("relu_copy.py", "relu", "incorrect", False, ["input_impact"]),
    # allclose fails (relative norm error ~0.08). Range, std, axes and input impact (~0.10)
    # all look like layernorm's: no filter singles it out by itself, correctness does.
    ("layernorm_copy.py", "layernorm", "incorrect", False, []),
    # allclose fails (misses rmsnorm(x) entirely); x has no effect on the output.
    ("rmsnorm_residual_copy_r.py", "rmsnorm_residual", "incorrect", False, ["input_impact"]),
    # (b) XLA does the work, a token pallas_call moves the result.
    # allclose passes.
    ("matmul_xla_dot.py", "matmul", "ok", False, ["source_analysis"]),
    # allclose passes.
    ("softmax_xla.py", "softmax", "ok", False, ["source_analysis"]),
    # allclose passes on the seeds (the token kernel multiplies by 1.0); XLA's f32 layernorm
    # misses the offset stress case's fixed bound (mean of 1e3-offset rows: errors ~6e-5 against
    # the float64 reference) and passes it by the platform's bound: it is the platform.
    ("layernorm_xla.py", "layernorm", "ok", False, ["source_analysis"]),
    # allclose passes.
    ("reduce_sum_xla.py", "reduce_sum", "ok", False, ["source_analysis"]),
    # (c) half in Pallas, half in XLA.
    # allclose passes.
    ("softmax_half_xla.py", "softmax", "ok", False, ["source_analysis"]),
    # allclose passes.
    ("matmul_half_xla.py", "matmul", "ok", False, ["source_analysis"]),
    # (d) wrong dtype, cast outside the kernel.
    # allclose fails on the dtype ("dtype bfloat16 differs from the reference's float32");
    # values alone would be within ~4e-3 relative.
    ("add_bfloat16_out.py", "add", "incorrect", False, ["source_analysis"]),
    # allclose fails (dtype float16 differs from float32).
    ("softmax_float16_out.py", "softmax", "incorrect", False, ["source_analysis"]),
    # (e) precision downgrade: inputs cast outside, kernel computes in low precision.
    # allclose fails, narrowly: 1 of 65536 elements past 1e-2 + 1e-2*|ref| on seed 0.
    ("matmul_bf16_inputs.py", "matmul", "incorrect", False, ["source_analysis"]),
    # allclose fails (bf16 gelu errs ~4e-3 relative against 1e-4).
    ("fused_gelu_bias_bf16.py", "fused_gelu_bias", "incorrect", False, ["source_analysis"]),
    # allclose passes (float16 keeps TF32's 10 mantissa bits). The casts are <1% of the FLOPs:
    # only a rule against casts outside pallas_call catches it.
    ("matmul_f16_inputs.py", "matmul", "ok", False, ["source_analysis"]),
    # (f) host callbacks. allclose passes. jax.export cannot hand a host callback to the executor,
    # so the tracer refuses it (compile_error: the module never exists; before the tracer/executor
    # split these were "ok" with source_analysis failing: refused either way).
    ("softmax_pure_callback.py", "softmax", "compile_error", False, ["source_analysis"]),
    ("matmul_io_callback.py", "matmul", "compile_error", False, ["source_analysis"]),
    # A foreign custom call (an XLA FFI kernel): refused by the analysis before it is compiled.
    ("softmax_foreign_custom_call.py", "softmax", "compile_error", False, ["source_analysis"]),
    # (g) near-constant outputs. No task at SMALL has a reference flat enough for one to pass.
    # allclose fails (errors ~0.06 against 1e-5). The 1-D output still varies, so
    # axes_variation is not expected to fire.
    ("reduce_mean_block_mean.py", "reduce_mean", "incorrect", False,
     ["output_range", "output_std", "input_impact"]),
    # allclose fails (rows 0.49 +- 0.012 against a constant 0.5).
    ("gc_content_constant.py", "gc_content", "incorrect", False,
     ["output_range", "output_std", "axes_variation", "input_impact"]),
    # (h) ignoring an input. No input's whole effect stays inside a task's tolerance at SMALL.
    # allclose fails (b ~ N(0, 1) shifts every gelu argument).
    ("fused_gelu_bias_ignores_b.py", "fused_gelu_bias", "incorrect", False, ["input_impact"]),
    # allclose fails (beta shifts whole columns).
    ("batch_norm_1d_ignores_beta.py", "batch_norm_1d", "incorrect", False, ["input_impact"]),
    # (i) the task's own reference, borrowed through the harness, inside a token pallas_call.
    # allclose passes; the jaxpr is all inside the pallas_call: only the source scan can tell.
    ("softmax_registry_reference.py", "softmax", "ok", False, ["source_analysis"]),
    # allclose passes; importlib by a path built from parts ("tasks" / "level1" / ...) relative
    # to its own file. The tracer imports the source from its private folder, where that path
    # leads nowhere: compile_error (before the tracer/executor split: ok, refused by
    # source_analysis; refused either way).
    ("layernorm_importlib_reference.py", "layernorm", "compile_error", False, ["source_analysis"]),
    # ---- hostile: the candidate attacks the process it runs in (docs/threat_model.md) ----------
    # Stack walk and monkeypatches of the harness from the import; export swapped for one of
    # XLA's softmax around the copy. allclose passes on what the forged module computes.
    ("softmax_patches_harness.py", "softmax", "ok", False, ["source_analysis"]),
    # The reference hunted through gc, frames and the scratch folders: nothing to find.
    ("layernorm_hunts_reference.py", "layernorm", "incorrect", False, []),
    # ---- dead and branch-guarded kernels: a pallas_call present but not doing the work -------
    # allclose passes (XLA's softmax).
    ("softmax_dead_pallas.py", "softmax", "ok", False, ["source_analysis"]),
    ("softmax_branch_guarded.py", "softmax", "ok", False, ["source_analysis"]),
    # ---- data movement: XLA moves or gathers the data, the kernel does the easy rest -----------
    # allclose passes (exact) for all three; no op outside does arithmetic (0% outside work).
    ("embedding_lookup_dynamic_slice.py", "embedding_lookup", "ok", False, ["source_analysis"]),
    ("reverse_complement_flip_outside.py", "reverse_complement", "ok", False, ["source_analysis"]),
    ("nucleotide_onehot_transposed.py", "nucleotide_onehot", "ok", False, ["source_analysis"]),
    # ---- precision: below the task's class inside the kernel, no cast outside ------------------
    # Judged on every case by the platform's bound alone (4x XLA's own error at TF32).
    # allclose passes; bf16 operands err ~8x TF32: past the platform's bound on the first seed.
    ("matmul_bf16_in_kernel.py", "matmul", "incorrect", False, []),
    # allclose passes; float16 keeps TF32's 10 mantissa bits: as accurate as XLA at TF32 on every
    # case (its element types no longer decide, its error does).
    ("matmul_f16_in_kernel.py", "matmul", "ok", True, []),
    # allclose passes; the bf16x3 split (hi*hi + hi*lo + lo*hi) errs ~1/60 of TF32.
    ("matmul_bf16x3.py", "matmul", "ok", True, []),
    # ---- unstable math: right on N(0,1) draws, wrong on a stress case (STRESS_FAILS) --------
    # allclose on the seeds passes for all four; each is orders of magnitude past XLA's own error
    # on its stress case, so the platform's bound refuses it too.
    ("softmax_no_max.py", "softmax", "incorrect", False, []),
    ("layernorm_naive_variance.py", "layernorm", "incorrect", False, []),
    ("kmer_count_narrow_counter.py", "kmer_count", "incorrect", False, []),
    ("cosine_sim_big_eps.py", "cosine_sim", "incorrect", False, []),
    # ---- honest -----------------------------------------------------------------------------
    # allclose passes (exact): sparse output, ids padded outside.
    ("one_hot_honest.py", "one_hot", "ok", True, []),
    # allclose passes (exact): sparse output from uint8 DNA.
    ("nucleotide_onehot_honest.py", "nucleotide_onehot", "ok", True, []),
    # allclose passes: two inputs, one tiny in bytes (the bias) yet fully used.
    ("fused_gelu_bias_honest.py", "fused_gelu_bias", "ok", True, []),
    # allclose passes: two inputs.
    ("layernorm_residual_honest.py", "layernorm_residual", "ok", True, []),
    # allclose passes: two pallas_calls in sequence.
    ("reduce_sum_two_pass.py", "reduce_sum", "ok", True, []),
    # allclose passes (exact): integer output from uint8 inputs.
    ("hamming_distance_honest.py", "hamming_distance", "ok", True, []),
    # allclose passes: padding before and slicing after the kernel.
    ("pwm_scan_padded.py", "pwm_scan", "ok", True, []),
    # Stable layernorms an author writes first: allclose fails the offset case's fixed bound
    # (f32 row sums of 1e3-offset values, as XLA's own), the platform's bound passes it.
    ("layernorm_two_pass.py", "layernorm", "ok", True, []),
    ("layernorm_welford.py", "layernorm", "ok", True, []),
    # Kernels written by others, through their public APIs: JAX's Pallas softmax (vmapped), and
    # JAX's decode attention, whose split-K partials XLA combines (the epilogue policy).
    ("softmax_jax_ops_gpu.py", "softmax", "ok", True, []),
    ("layernorm_jax_ops_gpu.py", "layernorm", "ok", True, []),
    ("flash_attention_jax_decode_attention.py", "flash_attention", "ok", True, []),
    # Layout outside the kernels that moves no input data (docs/filters.md, "Data movement"):
    # the weight packed K-major; the table, a weight too, packed column tile by column tile
    # (thirty times the task's byte model: refused were the table not a weight); padding at the
    # high end to whole blocks and a prefix slice back; split-K partials summed by XLA (0.8% of
    # the FLOPs, within the epilogue policy). allclose passes for all four.
    ("matmul_weight_packing.py", "matmul", "ok", True, []),
    ("embedding_lookup_packed_table.py", "embedding_lookup", "ok", True, []),
    ("relu_padded.py", "relu", "ok", True, []),
    ("matmul_split_k.py", "matmul", "ok", True, []),
    # A hostile import that finds nothing to attack: an honest kernel passes.
    ("relu_replay_cache.py", "relu", "ok", True, []),
    # Writes into every descriptor it finds: only its own tracer's, whose reply it breaks.
    ("relu_fd_writes.py", "relu", "crashed", False, []),
    # Memoizes through the stale output buffer on a GPU (bench/adversarial_gpu.sh: rejected by
    # the floor); interpret mode starts outputs as NaN, so here it is an honest relu.
    ("relu_stale_output.py", "relu", "ok", True, []),
]

# The bfloat16 tier (`--dtype bfloat16`, docs/dtypes.md): one `eval --batch` of its own.
BF16_CASES = [
    # bf16 operands straight into the dot, f32 accumulation: allclose passes.
    ("matmul_bf16_honest.py", "matmul", "ok", True, []),
    # f32 max, exp and sum, one rounding on the store: allclose passes.
    ("softmax_bf16_honest.py", "softmax", "ok", True, []),
    # The sum rounded through fp8 inside the kernel: allclose fails (~6% against 1e-2), and the
    # precision check names the conversion (the record's trust.module_analysis).
    ("add_fp8_round.py", "add", "incorrect", False, []),
    # XLA computes, a token pallas_call copies: allclose passes at bf16 too.
    ("matmul_xla_dot.py", "matmul", "ok", False, ["source_analysis"]),
    ("softmax_xla.py", "softmax", "ok", False, ["source_analysis"]),
    # A copy is no relu at any dtype.
    ("relu_copy.py", "relu", "incorrect", False, []),
]
# What the precision check must find in a bf16 case's kernel (record trust.module_analysis).
BF16_DOWNGRADES = {"add_fp8_round.py": "tt.fp_to_fp f32 -> f8E4M3FN"}

# The stress case each unstable candidate must fail, by name, in the record's error.
STRESS_FAILS = {
    "softmax_no_max.py": "large",  # exp(30 x) overflows: inf / inf
    "layernorm_naive_variance.py": "offset",  # E[x^2] - E[x]^2 cancels at 1e3
    "kmer_count_narrow_counter.py": "degenerate",  # poly-A wraps a uint8 counter
    "cosine_sim_big_eps.py": "tiny",  # an eps of 5e-4 swamps norms of 1e-4
}

# Cases that need timing or a given seed: tests/e2e/test_trusted_inputs.py.
TIMING_CASES = ["reduce_sum_seed_table.py", "reduce_sum_timing_differs.py"]

# Cases whose verdict means something on a GPU only (bench/adversarial_gpu.sh runs them there):
# on the CPU the harness forces interpret mode itself, and interpret mode cannot run inline PTX.
GPU_ONLY = ["relu_interpret_true.py", "matmul_f16_inline_asm.py"]

# Reasons the source analysis must give (a refusal for the wrong reason is no refusal): a text
# its reason holds, or several.
REASONS = {
    "softmax_foreign_custom_call.py": "custom call 'pallasbench_foreign_softmax'",
    "softmax_branch_guarded.py": "no Pallas kernel result reaches the output",
    "embedding_lookup_dynamic_slice.py": ("data-dependent addressing outside the Pallas kernels: "
                                          "stablehlo.dynamic_slice on line",
                                          "takes its start indices from input 'ids'"),
    "reverse_complement_flip_outside.py": "50.0% of the task's bytes moved outside the Pallas kernels "
                                          "(bytes: stablehlo.reverse",
    "nucleotide_onehot_transposed.py": "94.1% of the task's bytes moved outside the Pallas kernels "
                                       "(bytes: stablehlo.transpose",
}
# Failures that come before any filter runs: what the record's error must say.
ERRORS = {
    "softmax_pure_callback.py": "host callback 'pure_callback'",
    "matmul_io_callback.py": "host callback 'io_callback'",
    "softmax_foreign_custom_call.py": "refused before compiling",
    "matmul_bf16_in_kernel.py": "computes below the task's precision class",
    "layernorm_naive_variance.py": "not within the platform's bound",
}
# Kernels below the task's precision class: the types the record must show (precision.float_types),
# every case judged by the platform's bound (correctness.below_class, passed_by "platform").
BELOW_CLASS = {"matmul_bf16x3.py": "bf16", "matmul_f16_in_kernel.py": "f16", "matmul_bf16_in_kernel.py": "bf16",
               "add_fp8_round.py": "f8E4M3FN",
               # Cast outside (refused by source_analysis), and their kernels take the narrow type.
               "matmul_bf16_inputs.py": "bf16", "fused_gelu_bias_bf16.py": "bf16", "matmul_f16_inputs.py": "f16"}
# Cases that pass a stress case only by the platform's bound: where the fixed bound alone refused
# an honest kernel.
PLATFORM_PASSES = {"layernorm_two_pass.py": "offset", "layernorm_welford.py": "offset",
                   "layernorm_jax_ops_gpu.py": "offset", "layernorm_xla.py": "offset"}


def accepted(case) -> bool:
    return case[2] == "ok" and case[3]


def evaluate_corpus(env, folder, cases, *flags):
    """Every case's record, from one `eval --batch` of the cases (one JSON line a case, and the
    records file folder/out/records.jsonl): each candidate in a tracer of its own, the lanes'
    executors and reference processes serving them all. The exit code is 1 (some candidates
    fail), and each record names its request."""
    batch = folder / "requests.jsonl"
    batch.write_text("".join(json.dumps({"id": case[0], "task": case[1], "path": str(ADVERSARIAL / case[0])}) + "\n"
                             for case in cases))
    result = run_cli(env, "eval", "--batch", batch, "--device", "cpu", "--no-timing", "--json", "--out", folder / "out",
                     *flags, timeout=1800)
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    assert len(lines) == len(cases), result.stderr[-3000:]
    assert result.returncode == 1, result.stderr[-3000:]
    found = {record["request_id"]: record for record in lines}
    assert set(found) == {case[0] for case in cases}
    for name, record in found.items():
        assert Path(record["candidate"]["path"]).name == name
    return found


@pytest.fixture(scope="module")
def corpus_folder(tmp_path_factory):
    return tmp_path_factory.mktemp("corpus")


@pytest.fixture(scope="module")
def records(env, corpus_folder):
    return evaluate_corpus(env, corpus_folder, CASES)


@pytest.fixture(scope="module")
def bf16_records(env, tmp_path_factory):
    return evaluate_corpus(env, tmp_path_factory.mktemp("corpus_bf16"), BF16_CASES, "--dtype", "bfloat16")


@pytest.mark.parametrize("candidate, task, status, robust, failing", BF16_CASES,
                         ids=[case[0].removesuffix(".py") for case in BF16_CASES])
def test_adversarial_candidate_at_bfloat16(bf16_records, candidate, task, status, robust, failing):
    record = bf16_records[candidate]
    assert record["dtype"] == "bfloat16" and record["tolerance"] == {"atol": 1e-2, "rtol": 1e-2, "rel_norm": 1e-2}
    check_verdict(record, candidate, task, status, robust, failing)
    if candidate in BF16_DOWNGRADES:
        precision = record["trust"]["module_analysis"]["precision"]
        assert any(BF16_DOWNGRADES[candidate] in d for d in precision["downgrades"]), precision


@pytest.mark.parametrize("candidate, task, status, robust, failing", CASES,
                         ids=[case[0].removesuffix(".py") for case in CASES])
def test_adversarial_candidate(records, candidate, task, status, robust, failing):
    check_verdict(records[candidate], candidate, task, status, robust, failing)


def check_verdict(record, candidate, task, status, robust, failing):
    assert record["kernel_name"] == task
    assert record["status"] == status, record["error"]
    filters = record["result"]["filters"]
    assert set(filters) == set(registered_filters.names()), sorted(filters)
    verdicts = {name: (f["passed"], f["reason"]) for name, f in filters.items()}
    assert record["result"]["robustness_passed"] is robust, verdicts
    for name in failing:
        assert filters[name]["passed"] is False, f"{name} should fail: {verdicts[name]}"
    if robust:
        assert all(f["passed"] is True for f in filters.values()), verdicts
    if candidate in REASONS:
        wanted = REASONS[candidate]
        for text in (wanted,) if isinstance(wanted, str) else wanted:
            assert text in filters["source_analysis"]["reason"], verdicts["source_analysis"]
    if candidate in ERRORS:
        assert ERRORS[candidate] in record["error"]["message"], record["error"]
    if candidate in STRESS_FAILS:
        case = STRESS_FAILS[candidate]
        assert f"stress case '{case}'" in record["error"]["message"], record["error"]
        seeds = record["correctness"]["seeds"]
        assert len(seeds) == 3 and all(s["passed"] for s in seeds)  # right on every N(0,1) seed
        assert not {s["case"]: s for s in record["correctness"]["stress"]}[case]["passed"]
    if status == "ok":  # every declared stress case ran and passed
        task_stress = record["correctness"]["stress"]
        assert task_stress and all(s["passed"] for s in task_stress), task_stress
    check_platform(record, candidate)


def check_platform(record, candidate):
    correctness = record.get("correctness")
    if correctness is None:  # refused before any case ran
        return
    cases = correctness["seeds"] + correctness["stress"]
    assert correctness["below_class"] is (candidate in BELOW_CLASS), correctness
    if candidate in BELOW_CLASS:
        assert BELOW_CLASS[candidate] in record["precision"]["float_types"], record["precision"]
        assert all(c["platform_ratio"] is not None for c in cases), cases
        assert all(c["passed_by"] == "platform" for c in cases if c["passed"]), cases
    if candidate in PLATFORM_PASSES:
        case = {s["case"]: s for s in correctness["stress"]}[PLATFORM_PASSES[candidate]]
        # Past the fixed bound, within 4x XLA's own error on the same input.
        assert 1 < case["tolerance_ratio"] <= correctness["platform_factor"] * case["platform_ratio"], case
        assert case["passed"] and case["passed_by"] == "platform", case
    for c in cases:  # a case within its tolerance never needed the platform
        if c["passed"] and c["passed_by"] == "tolerance":
            assert c["tolerance_ratio"] <= 1 and "platform_ratio" not in c, c


def test_descriptor_writes_from_the_candidate_reach_nothing(records, corpus_folder):
    """relu_fd_writes.py (one of the corpus's batch) writes a forged record into every descriptor
    it finds: the tracer has none but its pipes, so the records file holds exactly the harness's
    records, one a case, and the forged line in its own reply channel is refused."""
    lines = (corpus_folder / "out" / "records.jsonl").read_text().splitlines()
    assert len(lines) == len(CASES)
    written = [json.loads(line) for line in lines]
    assert all("forged" not in r and r["uuid"] for r in written)  # the harness's records, not the candidate's line
    assert sorted(r["request_id"] for r in written) == sorted(records)
    record = records["relu_fd_writes.py"]
    assert record["status"] == "crashed" and "does not match request" in record["error"]["message"]


def test_a_replaying_import_is_timed_honestly(env):
    """relu_replay_cache.py patches every timing path it can reach from its import; the executor
    that times the kernel never imports it. An interpret-mode relu at SMALL takes hundreds of
    microseconds on the CPU; a replay took 2-4 us before the split."""
    result = run_cli(env, "eval", "--task", "relu", "--candidate", ADVERSARIAL / "relu_replay_cache.py",
                     "--device", "cpu", "--json", timeout=600)
    record = json.loads(result.stdout)
    assert record["status"] == "ok" and record["result"]["robustness_passed"], record["error"]
    median_us = record["timing"]["median_us"]
    assert median_us > 100, median_us


def test_the_tracer_ran_sandboxed(records):
    """The record says what the tracer's sandbox got; on this project's machines, all of it."""
    sandbox = records["relu_replay_cache.py"]["trust"]["tracer_sandbox"]
    for part in ("pid_namespace", "network_namespace", "mount_namespace", "private_tmp", "fds_closed", "rlimits",
                 "landlock"):
        assert sandbox[part] is True, sandbox


def test_corpus_covers_enough():
    """At least 16 degenerate candidates over at least 6 tasks, at least 6 honest ones, and every
    candidate file in tests/adversarial/ is in the table."""
    degenerate = [case for case in CASES if not case[3]]
    honest = [case for case in CASES if case[3]]
    assert len(degenerate) >= 16 and len({case[1] for case in degenerate}) >= 6
    assert len(honest) >= 6
    listed = [case[0] for case in CASES] + GPU_ONLY + TIMING_CASES
    assert len(set(listed)) == len(listed)
    assert set(listed) | {case[0] for case in BF16_CASES} == {p.name for p in ADVERSARIAL.glob("*.py")}
    assert {c[3] for c in BF16_CASES} == {True, False}  # honest and degenerate at bf16
    gpu_script = (ADVERSARIAL.parents[1] / "bench" / "adversarial_gpu.sh").read_text()
    assert all(f'"{name} ' in gpu_script for name in GPU_ONLY)
