// What keeps an evaluation's trouble its own, with scripted fake workers (fake_roles.py): a
// compiler-artifact capture that never ends costs the record its artifacts, not its verdict; an
// out-of-memory in the lane is retried with the device to the lane alone, and then is the
// candidate's only when its module needs more than the lane's share.
#include "pallasbench/orchestrate/evaluator.hpp"

#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "fake_roles.hpp"
#include "pallasbench/orchestrate/task_record.hpp"

namespace pallasbench {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using testing::contains;
using testing::fake_harness;
using testing::message_of;
using testing::pids_of;

timing_options quick_timing() {
  timing_options timing;
  timing.warmup = 1;
  timing.stopping = {.min_samples = 5, .min_time_s = 0.0, .max_noise = 0.5, .budget_s = 0.2};
  timing.batch_seconds = 0.0005;
  return timing;
}

TEST(EvaluatorContainment, ACaptureThatNeverEndsLeavesOkAndTimesTheReloadedCandidate) {
  fake_harness h("artifacts_hang");
  auto& eval = h.make_evaluator(fake_harness::config(), quick_timing());
  eval.set_artifacts({.mode = artifact_mode::inline_text, .timeout = 1s});
  const auto task = h.task("fake");

  const auto start = std::chrono::steady_clock::now();
  const auto r = eval.evaluate(task, fake_harness::suite_candidate(task));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 20s);  // the capture's own bound, not --timeout's
  EXPECT_EQ(r.status, task_status::ok) << message_of(r);
  EXPECT_FALSE(r.failure.has_value());
  ASSERT_TRUE(r.timing.has_value());  // timed all the same
  EXPECT_EQ(r.timing->kernel.series.summary.median, 100.0);
  const std::string why = r.compiler.at("unavailable").value("capture", "");
  EXPECT_TRUE(contains(why, "did not answer within 1 s")) << r.compiler.dump();
  EXPECT_TRUE(contains(why, "--artifacts-timeout 1 s")) << why;
  EXPECT_TRUE(contains(why, "the executor was restarted and the candidate compiled again for timing")) << why;
  EXPECT_EQ(to_record(r).at("status"), "ok");
  // A second executor loaded and compiled the module again (without a capture), and timed it.
  const auto loads = h.requests("executor", "load");
  ASSERT_EQ(loads.size(), 2u);
  EXPECT_EQ(pids_of(loads).size(), 2u);
  const auto compiles = h.requests("executor", "compile");
  ASSERT_EQ(compiles.size(), 2u);
  EXPECT_EQ(compiles.back().at("req").at("artifacts").at("mode"), "none");
  EXPECT_EQ(pids_of(h.requests("executor", "time")), std::set<long>{loads.back().at("pid").get<long>()});
}

TEST(EvaluatorContainment, ACaptureThatNeverEndsOnAFailureIsStoppedWithoutAReload) {
  fake_harness h("artifacts_hang,run_wrong");
  auto& eval = h.make_evaluator();
  eval.set_artifacts({.mode = artifact_mode::inline_text, .timeout = 1s});
  const auto task = h.task("fake");
  const auto r = eval.evaluate(task, fake_harness::suite_candidate(task));
  EXPECT_EQ(r.status, task_status::incorrect) << message_of(r);
  EXPECT_TRUE(contains(r.compiler.at("unavailable").value("capture", ""), "did not answer within 1 s"));
  EXPECT_EQ(h.requests("executor", "load").size(), 1u);  // nothing to time: no reload
}

TEST(EvaluatorContainment, AnOutOfMemoryOnceIsRetriedAloneAndPasses) {
  testing::temp_dir marker;
  fake_harness h("run_oom", {{"FAKE_OOM_ONCE", (marker.path() / "oom-once").string()}});
  auto& eval = h.make_evaluator();
  const auto task = h.task("fake");
  const auto r = eval.evaluate(task, fake_harness::suite_candidate(task));
  EXPECT_EQ(r.status, task_status::ok) << message_of(r);
  ASSERT_TRUE(r.trust.contains("retried_alone")) << r.trust.dump();
  EXPECT_EQ(r.trust["retried_alone"].at("status"), "runtime_error");
  EXPECT_TRUE(contains(r.trust["retried_alone"].at("message").get<std::string>(), "RESOURCE_EXHAUSTED"));
  // The retry ran in a fresh executor.
  EXPECT_EQ(pids_of(h.requests("executor", "load")).size(), 2u);
}

TEST(EvaluatorContainment, AnOutOfMemoryAgainIsTheCandidatesOnlyWhenItsModuleExceedsTheShare) {
  {
    fake_harness h("run_oom", {{"FAKE_DEVICE_LIMIT", "100"}});  // the module needs 192 bytes
    auto& eval = h.make_evaluator();
    const auto task = h.task("fake");
    const auto r = eval.evaluate(task, fake_harness::suite_candidate(task));
    EXPECT_EQ(r.status, task_status::runtime_error) << message_of(r);
    EXPECT_TRUE(contains(message_of(r), "the module needs 192 bytes")) << message_of(r);
    EXPECT_TRUE(contains(message_of(r), "more than the lane's share, 100 bytes")) << message_of(r);
    EXPECT_TRUE(r.trust.contains("retried_alone"));
  }
  {
    fake_harness h("run_oom", {{"FAKE_DEVICE_LIMIT", "1000000"}});
    auto& eval = h.make_evaluator();
    const auto task = h.task("fake");
    const auto r = eval.evaluate(task, fake_harness::suite_candidate(task));
    EXPECT_EQ(r.status, task_status::harness_error) << message_of(r);
    EXPECT_TRUE(contains(message_of(r), "though the module needs 192 bytes of the lane's share")) << message_of(r);
    EXPECT_TRUE(contains(message_of(r), "RESOURCE_EXHAUSTED")) << message_of(r);
  }
}

TEST(EvaluatorContainment, TheRetryWaitsUntilItHasTheDeviceAlone) {
  fake_harness h("run_oom", {{"FAKE_DEVICE_LIMIT", "100"}});
  device_slot device;
  auto& eval = h.make_evaluator();
  eval.set_device(device);
  const auto task = h.task("fake");
  // Another lane holds the device for 3 s: the first attempt shares it, the retry waits. (1.5 s
  // was too short on a loaded 2-core machine: the fakes' first load came after the release.)
  auto neighbour = std::make_optional(device.token.shared());
  double released = 0;  // seconds since the epoch, as the fakes log their requests
  std::thread release([&] {
    std::this_thread::sleep_for(3000ms);
    released = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    neighbour.reset();
  });
  const auto r = eval.evaluate(task, fake_harness::suite_candidate(task));
  release.join();
  ASSERT_TRUE(r.trust.contains("retried_alone")) << r.trust.dump();
  const auto loads = h.requests("executor", "load");
  ASSERT_EQ(loads.size(), 2u);
  EXPECT_LT(loads.front().at("t").get<double>(), released);  // the first attempt ran beside the neighbour
  EXPECT_GE(loads.back().at("t").get<double>(), released);   // the retry only once it was gone
  EXPECT_FALSE(device.token.exclusive_held());
}

}  // namespace
}  // namespace pallasbench
