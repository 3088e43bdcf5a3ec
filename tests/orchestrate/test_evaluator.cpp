// The evaluator with the real worker pool and scripted fake workers (fake_roles.py): each failure
// of a worker or a candidate becomes the status and phase the record says.
#include "pallasbench/orchestrate/evaluator.hpp"

#include <bit>
#include <chrono>
#include <cstdint>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "fake_roles.hpp"
#include "pallasbench/check/filters/registry.hpp"
#include "pallasbench/measure/timing_replies.hpp"
#include "pallasbench/orchestrate/task_record.hpp"
#include "pallasbench/record/record.hpp"

namespace pallasbench {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using testing::contains;
using testing::fake_harness;
using testing::message_of;
using testing::pids_of;

// Every task of the fakes: inputs x, y (4, 4); 2 seeds, one stress case, two perturbations.
TEST(Evaluator, HonestFakeIsCorrectAndFailsOnlyTheUnverifiablePrecision) {
  fake_harness h("");
  auto& eval = h.make_evaluator();
  const auto task = h.task("fake");
  const auto r = eval.evaluate(task, fake_harness::suite_candidate(task));

  EXPECT_EQ(r.status, task_status::ok) << message_of(r);
  EXPECT_FALSE(r.failure.has_value());
  ASSERT_TRUE(r.correctness.has_value());
  EXPECT_TRUE(r.correctness->passed());
  EXPECT_EQ(r.correctness->max_abs_error(), 0.0);  // the fake computes 2x + y exactly as its reference
  EXPECT_EQ(r.seeds.size(), 2u);
  EXPECT_TRUE(contains(r.stablehlo, "fake_kernel"));
  EXPECT_EQ(r.compile_s, 0.002);
  // The data filters pass on the fake's data; source analysis cannot: the fake's load hands over
  // no kernel IR for its one Pallas call, and a float32 task's kernel precision must be verified.
  for (const auto& d : filter_descriptions())
    if (d.name != "source_analysis")
      EXPECT_TRUE(r.filters.at(d.name).at("passed").get<bool>()) << d.name << ": " << r.filters.at(d.name).dump();
  EXPECT_FALSE(r.filters.at("source_analysis").at("passed").get<bool>());
  EXPECT_TRUE(contains(r.filters.at("source_analysis").at("reason"), "precision unverified"))
      << r.filters.at("source_analysis").dump();
  ASSERT_TRUE(r.robustness_passed.has_value());
  EXPECT_FALSE(*r.robustness_passed);

  const auto record = to_record(r);
  EXPECT_EQ(record.at("status"), "ok");
  EXPECT_FALSE(record.contains("error")) << record.at("error").dump();  // nulls are dropped (schema 2)
  EXPECT_EQ(record.at("result").at("correctness_passed"), true);
  EXPECT_EQ(record.at("result").at("robustness_passed"), false);
  // The stress case's factor, as the reference reported it, and none on the seeds.
  ASSERT_EQ(record.at("correctness").at("stress").size(), 1u);
  EXPECT_EQ(record.at("correctness").at("stress")[0].at("large_factor"), 1000.0);
  EXPECT_FALSE(record.at("correctness").at("seeds")[0].contains("large_factor"));

  // What the fakes were asked: 2 seeds + 1 stress case + 2 perturbations, each a reference and
  // a run; the seeds' runs write two outputs (determinism); one trace, load and compile.
  EXPECT_EQ(h.reference_outputs().size(), 5u);
  // Each output was asked for right after its inputs alone, with the same fields.
  const auto all = h.requests("reference", "reference");
  ASSERT_EQ(all.size(), 10u);
  for (std::size_t i = 0; i < all.size(); i += 2) {
    auto inputs = all[i].at("req"), output = all[i + 1].at("req");
    EXPECT_EQ(inputs.value("inputs_only", false), true);
    EXPECT_FALSE(output.contains("inputs_only"));
    inputs.erase("inputs_only");
    inputs.erase("id");
    output.erase("id");
    EXPECT_EQ(inputs, output);
  }
  const auto runs = h.requests("executor", "run");
  ASSERT_EQ(runs.size(), 5u);
  EXPECT_EQ(runs[0].at("req").at("outputs").size(), 2u);
  for (const auto& run : runs) EXPECT_FALSE(run.at("reference_visible").get<bool>()) << run.dump();
  EXPECT_EQ(h.requests("tracer", "trace").size(), 1u);
  EXPECT_EQ(h.requests("executor", "load").size(), 1u);
  EXPECT_EQ(h.requests("executor", "compile").size(), 1u);
  EXPECT_TRUE(h.requests("reference", "time_reference").empty());  // timing off
  EXPECT_TRUE(h.requests("executor", "time").empty());

  // Each process was told its role (worker.cpp sets PALLASBENCH_ROLE).
  EXPECT_EQ(h.pool->reference().hello().at("role"), "reference");
  EXPECT_EQ(h.pool->executor().hello().at("role"), "executor");
  EXPECT_EQ(h.pool->suite_tracer().hello().at("role"), "tracer");
}

TEST(Evaluator, KernelIrMakesEveryFilterPass) {
  fake_harness h("kernel_ir");  // the load reply carries a real f32 Triton kernel's IR
  auto& eval = h.make_evaluator();
  const auto task = h.task("fake");
  const auto r = eval.evaluate(task, fake_harness::suite_candidate(task));
  EXPECT_EQ(r.status, task_status::ok) << message_of(r);
  ASSERT_TRUE(r.robustness_passed.has_value());
  EXPECT_TRUE(*r.robustness_passed) << r.filters.dump(1);
  EXPECT_EQ(r.filters.size(), default_filters().size());
}

TEST(Evaluator, LoadHangingPastTheTimeoutIsTimeoutAndDropsTheExecutor) {
  fake_harness h("hang_load");
  auto& eval = h.make_evaluator(fake_harness::config(2));
  const auto task = h.task("fake");
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = eval.evaluate(task, fake_harness::suite_candidate(task));
  const auto took = std::chrono::steady_clock::now() - t0;

  EXPECT_EQ(r.status, task_status::timeout) << message_of(r);
  ASSERT_TRUE(r.failure.has_value());
  EXPECT_EQ(r.failure->phase, failure_phase::load);
  EXPECT_TRUE(contains(r.failure->message, "did not answer within 2 s")) << r.failure->message;
  EXPECT_GE(took, 2s);
  EXPECT_LT(took, 10s);
  EXPECT_FALSE(h.pool->has_executor());  // killed and discarded: the next task gets a fresh one
  EXPECT_TRUE(h.requests("executor", "compile").empty());
  const auto record = to_record(r);
  EXPECT_EQ(record.at("status"), "timeout");
  EXPECT_EQ(record.at("error").at("phase"), "load");
  EXPECT_EQ(record.at("result").at("correctness_passed"), false);
}

TEST(Evaluator, ReferenceDeathIsHarnessErrorAndTheNextGetsAFreshReference) {
  fake_harness h("die_reference:doomed");
  auto& eval = h.make_evaluator();
  const auto tasks = h.describe({"doomed", "fake"});
  const auto r = eval.evaluate(tasks[0], fake_harness::suite_candidate(tasks[0]));

  EXPECT_EQ(r.status, task_status::harness_error) << message_of(r);
  ASSERT_TRUE(r.failure.has_value());
  EXPECT_EQ(r.failure->phase, failure_phase::reference);
  EXPECT_TRUE(contains(r.failure->message, "worker died while running 'reference'")) << r.failure->message;
  EXPECT_TRUE(contains(r.failure->message, "exit code 3")) << r.failure->message;
  EXPECT_TRUE(contains(r.stderr_tail, "dying during 'reference'")) << r.stderr_tail;
  EXPECT_TRUE(h.requests("tracer", "trace").empty());  // nothing of the candidate ran
  EXPECT_EQ(to_record(r).at("error").at("phase"), "reference");

  const auto next = eval.evaluate(tasks[1], fake_harness::suite_candidate(tasks[1]));
  EXPECT_EQ(next.status, task_status::ok) << message_of(next);
  const auto dead = pids_of(h.requests("reference", "reference", "doomed"));
  const auto fresh = pids_of(h.requests("reference", "reference", "fake"));
  ASSERT_EQ(dead.size(), 1u);
  ASSERT_EQ(fresh.size(), 1u);
  EXPECT_NE(*dead.begin(), *fresh.begin());
}

TEST(Evaluator, OutputOfTheWrongDtypeIsIncorrect) {
  fake_harness h("run_dtype");
  auto& eval = h.make_evaluator();
  const auto task = h.task("fake");
  const auto r = eval.evaluate(task, fake_harness::suite_candidate(task));

  EXPECT_EQ(r.status, task_status::incorrect) << message_of(r);
  ASSERT_TRUE(r.failure.has_value());
  EXPECT_EQ(r.failure->phase, failure_phase::run);
  EXPECT_EQ(r.failure->message, "dtype float64 differs from the reference's float32");
  EXPECT_TRUE(h.pool->has_executor());  // a wrong output is the kernel's fault, not the process's
  const auto record = to_record(r);
  EXPECT_EQ(record.at("status"), "incorrect");
  EXPECT_EQ(record.at("result").at("correctness_passed"), false);
  // The filters could not run: each says so, none passes silently.
  EXPECT_EQ(record.at("result").at("robustness_passed"), false);
  ASSERT_EQ(r.filters.size(), default_filters().size());
  for (const auto& d : filter_descriptions()) {
    const auto& verdict = record.at("result").at("filters").at(d.name);
    EXPECT_FALSE(verdict.at("passed").get<bool>()) << d.name;
    EXPECT_TRUE(contains(verdict.at("reason"), "not run: status incorrect")) << d.name;
    EXPECT_EQ(verdict.at("direction"), to_string(d.direction)) << d.name;
    EXPECT_FALSE(verdict.contains("threshold")) << d.name;  // nothing was compared
  }
}

TEST(Evaluator, WrongValuesAndNondeterminismAreIncorrectAtCheck) {
  fake_harness h("run_wrong:wrong,nondeterministic:flaky");
  auto& eval = h.make_evaluator();
  const auto tasks = h.describe({"wrong", "flaky"});

  const auto wrong = eval.evaluate(tasks[0], fake_harness::suite_candidate(tasks[0]));
  EXPECT_EQ(wrong.status, task_status::incorrect) << message_of(wrong);
  ASSERT_TRUE(wrong.failure.has_value());
  EXPECT_EQ(wrong.failure->phase, failure_phase::check);
  EXPECT_TRUE(contains(wrong.failure->message, "seed ")) << wrong.failure->message;
  // A failing seed is enough: no second seed, no stress case, no perturbation; the seed's miss was
  // measured against the platform's own error (here 0: the fake's XLA is the reference).
  EXPECT_EQ(h.reference_outputs("wrong").size(), 1u);
  EXPECT_EQ(h.platform_outputs("wrong").size(), 1u);
  EXPECT_TRUE(contains(wrong.failure->message, "not within the platform's bound")) << wrong.failure->message;

  const auto flaky = eval.evaluate(tasks[1], fake_harness::suite_candidate(tasks[1]));
  EXPECT_EQ(flaky.status, task_status::incorrect) << message_of(flaky);
  ASSERT_TRUE(flaky.failure.has_value());
  EXPECT_EQ(flaky.failure->phase, failure_phase::check);
  EXPECT_TRUE(contains(flaky.failure->message, "not bit-identical")) << flaky.failure->message;
}

TEST(Evaluator, KernelRaisingIsRuntimeErrorAndKeepsTheExecutor) {
  fake_harness h("run_raises:raises");
  auto& eval = h.make_evaluator();
  const auto tasks = h.describe({"raises", "fake"});
  const auto r = eval.evaluate(tasks[0], fake_harness::suite_candidate(tasks[0]));
  EXPECT_EQ(r.status, task_status::runtime_error) << message_of(r);
  ASSERT_TRUE(r.failure.has_value());
  EXPECT_EQ(r.failure->phase, failure_phase::run);
  EXPECT_TRUE(contains(r.failure->message, "fake kernel failure")) << r.failure->message;
  EXPECT_EQ(r.failure->traceback, "Traceback (fake executor)");
  EXPECT_TRUE(h.pool->has_executor());

  const auto next = eval.evaluate(tasks[1], fake_harness::suite_candidate(tasks[1]));
  EXPECT_EQ(next.status, task_status::ok) << message_of(next);
  EXPECT_EQ(pids_of(h.requests("executor", "load")).size(), 1u);  // the same process served both
}

TEST(Evaluator, FailedArtifactCaptureKeepsOkAndSaysWhyThePtxIsMissing) {
  fake_harness h("artifacts_fail:broken,artifacts_ok:fine");
  auto& eval = h.make_evaluator();
  eval.set_artifacts({.mode = artifact_mode::inline_text});
  const auto tasks = h.describe({"broken", "fine"});

  const auto broken = eval.evaluate(tasks[0], fake_harness::suite_candidate(tasks[0]));
  EXPECT_EQ(broken.status, task_status::ok) << message_of(broken);
  EXPECT_FALSE(broken.failure.has_value());
  ASSERT_TRUE(broken.compiler.is_object());
  EXPECT_EQ(broken.compiler.at("mode"), "inline");
  EXPECT_TRUE(broken.compiler.at("ptx").is_null());
  const std::string why = broken.compiler.at("unavailable").value("ptx", "");
  EXPECT_TRUE(contains(why, "collecting the background capture failed")) << broken.compiler.dump();
  EXPECT_TRUE(contains(why, "fake ptxas exited with 1")) << why;
  EXPECT_EQ(to_record(broken).at("status"), "ok");
  EXPECT_EQ(h.requests("executor", "artifacts", "broken").size(), 1u);

  const auto fine = eval.evaluate(tasks[1], fake_harness::suite_candidate(tasks[1]));
  EXPECT_EQ(fine.status, task_status::ok) << message_of(fine);
  ASSERT_TRUE(fine.compiler.at("ptx").is_object()) << fine.compiler.dump();
  EXPECT_TRUE(contains(fine.compiler.at("ptx").value("text", ""), "fake PTX"));
  // The capture was collected once the checks were done, before anything else of the task.
  const auto all = h.requests();
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(all.back().at("cmd"), "artifacts");
  EXPECT_EQ(all.back().at("task"), "fine");
}

TEST(Evaluator, TracerCompileErrorIsCompileErrorAtTrace) {
  fake_harness h("trace_compile_error");
  auto& eval = h.make_evaluator();
  const auto task = h.task("fake");

  const auto suite = eval.evaluate(task, fake_harness::suite_candidate(task));
  EXPECT_EQ(suite.status, task_status::compile_error) << message_of(suite);
  ASSERT_TRUE(suite.failure.has_value());
  EXPECT_EQ(suite.failure->phase, failure_phase::trace);
  EXPECT_TRUE(contains(suite.failure->message, "fake trace failure")) << suite.failure->message;
  EXPECT_EQ(suite.failure->traceback, "Traceback (fake tracer)");
  EXPECT_TRUE(contains(suite.stderr_tail, "does not trace")) << suite.stderr_tail;
  EXPECT_TRUE(h.requests("executor", "load").empty());
  EXPECT_EQ(to_record(suite).at("error").at("phase"), "trace");

  // A user candidate's tracer (one per candidate, thrown away) fails the same way.
  candidate_spec user;
  user.kind = candidate_kind::user;
  user.file = "candidate.py";
  user.sha256 = std::string(64, 'a');
  user.source = "# task: fake\ndef kernel(x, y):\n    return x\n";
  user.bundled_source = user.source;
  user.encoding = "utf-8";
  const auto r = eval.evaluate(task, user);
  EXPECT_EQ(r.status, task_status::compile_error) << message_of(r);
  ASSERT_TRUE(r.failure.has_value());
  EXPECT_EQ(r.failure->phase, failure_phase::trace);
  const auto traces = h.requests("tracer", "trace");
  ASSERT_EQ(traces.size(), 2u);
  EXPECT_EQ(traces[1].at("req").at("candidate").at("source"), user.source);
  EXPECT_EQ(traces[1].at("req").at("candidate").at("name"), "candidate.py");
  EXPECT_NE(traces[0].at("pid"), traces[1].at("pid"));
}

TEST(Evaluator, ForeignCustomCallIsRefusedBeforeCompiling) {
  fake_harness h("foreign_call");
  auto& eval = h.make_evaluator();
  const auto task = h.task("fake");
  const auto r = eval.evaluate(task, fake_harness::suite_candidate(task));
  EXPECT_EQ(r.status, task_status::compile_error) << message_of(r);
  ASSERT_TRUE(r.failure.has_value());
  EXPECT_EQ(r.failure->phase, failure_phase::analysis);
  EXPECT_TRUE(contains(r.failure->message, "xla_python_cpu_callback")) << r.failure->message;
  EXPECT_TRUE(h.requests("executor", "compile").empty());
  EXPECT_TRUE(h.requests("executor", "run").empty());
  EXPECT_FALSE(r.filters.at("source_analysis").at("passed").get<bool>());
}

TEST(Evaluator, ExecutorCrashIsCrashedAndTheNextEvaluationGetsAFreshExecutor) {
  fake_harness h("crash_run:crashy");
  auto& eval = h.make_evaluator();
  const auto tasks = h.describe({"crashy", "fake"});

  const auto crashed = eval.evaluate(tasks[0], fake_harness::suite_candidate(tasks[0]));
  EXPECT_EQ(crashed.status, task_status::crashed) << message_of(crashed);
  ASSERT_TRUE(crashed.failure.has_value());
  EXPECT_EQ(crashed.failure->phase, failure_phase::run);
  EXPECT_TRUE(contains(crashed.failure->message, "SIGSEGV")) << crashed.failure->message;
  EXPECT_TRUE(contains(crashed.stderr_tail, "segfault in the kernel")) << crashed.stderr_tail;
  EXPECT_FALSE(h.pool->has_executor());
  EXPECT_EQ(to_record(crashed).at("status"), "crashed");

  const auto next = eval.evaluate(tasks[1], fake_harness::suite_candidate(tasks[1]));
  EXPECT_EQ(next.status, task_status::ok) << message_of(next);
  const auto first = pids_of(h.requests("executor", "load", "crashy"));
  const auto second = pids_of(h.requests("executor", "load", "fake"));
  ASSERT_EQ(first.size(), 1u);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_NE(*first.begin(), *second.begin());
  // The reference and the suite's tracer were not to blame: they served both.
  EXPECT_EQ(pids_of(h.requests("reference", "reference")).size(), 1u);
  EXPECT_EQ(pids_of(h.requests("tracer", "trace")).size(), 1u);
}

// The one test with timing on: batches of the fakes' constant samples, alternating sides.
TEST(Evaluator, TimingLoopFoldsBatchesAndRechecksTheTimedOutput) {
  fake_harness h("time_wrong:liar");
  timing_options timing;
  timing.warmup = 3;
  // The fakes' samples are 100 us each: batches of 5, eight of them to cover min_time_s.
  timing.stopping = {.min_samples = 5, .min_time_s = 0.004, .max_noise = 0.05, .budget_s = 1.0};
  timing.batch_seconds = 0.0005;
  auto& eval = h.make_evaluator(fake_harness::config(), timing);
  const auto tasks = h.describe({"fake", "liar"});

  const auto r = eval.evaluate(tasks[0], fake_harness::suite_candidate(tasks[0]));
  EXPECT_EQ(r.status, task_status::ok) << message_of(r);
  ASSERT_TRUE(r.timing.has_value());
  EXPECT_EQ(r.timing->timer, "wall");
  EXPECT_EQ(r.timing->kernel.series.summary.median, 100.0);
  ASSERT_TRUE(r.timing->reference.has_value());
  EXPECT_EQ(r.timing->reference->series.summary.median, 200.0);
  EXPECT_TRUE(r.timing->kernel.series.converged);
  EXPECT_EQ(r.timing->reference_precision, "highest");
  EXPECT_EQ(r.timing->recheck.at("passed"), true);
  EXPECT_GE(r.timing->recheck.at("batches").get<int>(), 1);
  EXPECT_EQ(r.peak_bytes, 4096);
  const auto record = to_record(r);
  EXPECT_EQ(record.at("timing").at("reference_median_us"), 200.0);

  // Each side's first call is untimed (one call, one sample dropped, no output kept); then the first
  // batch warms up and asks min_samples samples; the timing inputs are of their own seed, never a
  // checked one. The output is saved for the recheck on batches 1, 2, 4, 8, ... only.
  const auto times = h.requests("executor", "time", "fake");
  ASSERT_GE(times.size(), 4u);
  EXPECT_EQ(times[0].at("req").at("warmup"), 1);
  EXPECT_EQ(times[0].at("req").at("samples"), 1);
  EXPECT_TRUE(times[0].at("req").at("output").is_null());
  EXPECT_EQ(times[1].at("req").at("warmup"), 3);
  EXPECT_EQ(times[1].at("req").at("samples"), 5);
  for (std::size_t i = 2; i < times.size(); ++i) EXPECT_EQ(times[i].at("req").at("warmup"), 0);
  for (std::size_t batch = 1; batch < times.size(); ++batch)
    EXPECT_EQ(times[batch].at("req").at("output").is_string(), rechecked_batch(static_cast<int>(batch)))
        << "batch " << batch;
  EXPECT_EQ(r.timing->recheck.at("batches"), std::bit_width(times.size() - 1));
  EXPECT_GE(times.size() - 1, 5u);  // enough batches for the schedule to skip some
  const auto reference_times = h.requests("reference", "time_reference", "fake");
  ASSERT_GE(reference_times.size(), 2u);
  EXPECT_EQ(reference_times[0].at("req").at("samples"), 1);
  EXPECT_EQ(reference_times[1].at("req").at("warmup"), 3);
  EXPECT_EQ(reference_times[0].at("req").at("precision"), "highest");
  std::set<std::uint64_t> checked(r.seeds.begin(), r.seeds.end());
  const auto references = h.reference_outputs("fake");
  ASSERT_EQ(references.size(), 6u);  // 2 seeds, 1 stress case, 2 perturbations, the timing inputs
  EXPECT_FALSE(checked.contains(references.back().at("req").at("seed").get<std::uint64_t>()));
  EXPECT_EQ(times[1].at("req").at("inputs"),
            json::array({references.back().at("req").at("dir").get<std::string>() + "/in_x.npy",
                         references.back().at("req").at("dir").get<std::string>() + "/in_y.npy"}));

  // A kernel whose timed output differs from what it was checked with is incorrect.
  const auto liar = eval.evaluate(tasks[1], fake_harness::suite_candidate(tasks[1]));
  EXPECT_EQ(liar.status, task_status::incorrect) << message_of(liar);
  ASSERT_TRUE(liar.failure.has_value());
  EXPECT_EQ(liar.failure->phase, failure_phase::time);
  EXPECT_TRUE(contains(liar.failure->message, "differs under timing")) << liar.failure->message;
}

}  // namespace
}  // namespace pallasbench
