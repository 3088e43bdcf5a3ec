// Lanes over scripted fake workers (fake_roles.py): several lanes give the records one lane gives,
// in the same order; lanes on two fake GPUs tell their workers their device and name it in the
// records; lanes on one device never run GPU work during another lane's timed series; every
// record's phases add up to its wall time; and a job's tracer share counts against the budget.
#include "pallasbench/orchestrate/lanes.hpp"

#include <map>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "fake_roles.hpp"
#include "pallasbench/orchestrate/runner.hpp"
#include "pallasbench/orchestrate/task_record.hpp"

namespace pallasbench {
namespace {

using nlohmann::json;
using testing::fake_harness;

TEST(LaneCount, DefaultsToTheCoresLessOneAndNeverExceedsTheJobs) {
  EXPECT_EQ(lane_count(0, 100, 16), 15u);
  EXPECT_EQ(lane_count(0, 100, 2), 1u);
  EXPECT_EQ(lane_count(0, 100, 1), 1u);
  EXPECT_EQ(lane_count(0, 100, 0), 1u);  // hardware_concurrency() may not know
  EXPECT_EQ(lane_count(4, 100, 2), 4u);  // asked for: taken as asked
  EXPECT_EQ(lane_count(8, 3, 16), 3u);
  EXPECT_EQ(lane_count(8, 0, 16), 1u);
}

std::deque<device_slot> fake_gpus(int count) {
  std::deque<device_slot> devices;
  for (int i = 0; i < count; ++i) {
    auto& d = devices.emplace_back();
    d.index = i;
    d.visible = std::to_string(i);
    d.uuid = "GPU-fake-" + std::to_string(i);
  }
  return devices;
}

struct lane_run {
  std::vector<json> records;
  std::vector<std::string> names;
};

lane_run run_lanes(fake_harness& h, std::deque<device_slot>& devices, std::size_t lanes,
                   const std::vector<task_info>& tasks, const run_config& config, timing_options timing = {}) {
  evaluator_setup setup{config, timing, {artifact_mode::none, false, {}}, json{{"backend", "gpu"}}, std::nullopt, "t"};
  lane_set set(nullptr, fake_harness::options(), devices, lanes, setup);  // every lane told its GPU
  set.prestart(candidate_kind::suite, false);
  std::ostringstream progress;
  progress_printer out(progress, false);
  runner r(set.evaluators(), nullptr, {}, out);
  const auto outcome = r.run(tasks, fake_harness::suite_candidate, config);
  lane_run result;
  result.records = outcome.records;
  for (const auto& record : outcome.records) result.names.push_back(record.at("kernel_name"));
  return result;
}

run_config gpu_config() {
  auto c = fake_harness::config();
  c.device = device_kind::gpu;  // the records name their GPU
  return c;
}

TEST(Lanes, TwoGpusTwoLanesGiveOneLanesRecordsInOrder) {
  const std::vector<std::string> names = {"a", "b", "c", "d", "e", "f"};
  std::vector<json> one_lane, two_lanes;
  {
    fake_harness h("run_wrong:c");
    auto devices = fake_gpus(1);
    one_lane = run_lanes(h, devices, 1, h.describe(names), gpu_config()).records;
  }
  fake_harness h("run_wrong:c");
  auto devices = fake_gpus(2);
  const auto tasks = h.describe(names);
  const auto run = run_lanes(h, devices, 2, tasks, gpu_config());
  two_lanes = run.records;
  EXPECT_EQ(run.names, names);
  ASSERT_EQ(one_lane.size(), two_lanes.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(one_lane[i].at("status"), two_lanes[i].at("status")) << names[i];
    EXPECT_EQ(one_lane[i].at("seed"), two_lanes[i].at("seed")) << names[i];
    EXPECT_EQ(one_lane[i].at("result").at("max_abs_error"), two_lanes[i].at("result").at("max_abs_error"));
  }
  EXPECT_EQ(two_lanes[2].at("status"), "incorrect");

  // Each lane's workers were told their GPU, and each record names the GPU that ran it.
  std::map<int, std::string> visible_of_pid;
  for (const auto& r : h.requests())
    if (r.at("visible").is_string()) visible_of_pid[r.at("pid")] = r.at("visible");
  std::set<std::size_t> lanes_used;
  for (const auto& record : two_lanes) {
    const auto& placement = record.at("placement");
    const std::size_t lane = placement.at("lane");
    lanes_used.insert(lane);
    EXPECT_EQ(placement.at("lanes"), 2);
    const int gpu = placement.at("gpu").at("index");
    EXPECT_EQ(gpu, static_cast<int>(lane % 2));
    EXPECT_EQ(placement.at("gpu").at("uuid"), "GPU-fake-" + std::to_string(gpu));
    const auto runs = h.requests("executor", "run", record.at("kernel_name"));
    ASSERT_FALSE(runs.empty());
    for (const auto& request : runs) EXPECT_EQ(visible_of_pid.at(request.at("pid")), std::to_string(gpu));
  }
  EXPECT_EQ(lanes_used, (std::set<std::size_t>{0, 1}));
}

TEST(Lanes, EveryRecordsPhasesAddUpToItsWallTime) {
  fake_harness h("run_wrong:b");
  auto devices = fake_gpus(1);
  const auto run = run_lanes(h, devices, 2, h.describe({"a", "b", "c", "d"}), gpu_config());
  ASSERT_EQ(run.records.size(), 4u);
  for (const auto& record : run.records) {
    const auto& phases = record.at("phases");
    double sum = 0;
    for (const auto& [name, seconds] : phases.items())
      if (name != "wall_s") sum += seconds.get<double>();
    const double wall = phases.at("wall_s");
    EXPECT_GT(wall, 0);
    EXPECT_NEAR(sum, wall, 0.05 * wall) << phases.dump();
    EXPECT_GT(phases.at("reference_s").get<double>(), 0);
    EXPECT_GT(phases.at("compile_s").get<double>(), 0);
  }
}

// Whether two of the tasks' evaluations overlapped, by the times the fakes logged their requests.
bool evaluations_overlap(const fake_harness& h) {
  std::map<std::string, std::pair<double, double>> span;
  for (const auto& r : h.requests()) {
    if (!r.at("task").is_string()) continue;
    const double t = r.at("t");
    auto [it, fresh] = span.try_emplace(r.at("task").get<std::string>(), t, t);
    it->second = {std::min(it->second.first, t), std::max(it->second.second, t)};
  }
  for (auto a = span.begin(); a != span.end(); ++a)
    for (auto b = std::next(a); b != span.end(); ++b)
      if (a->second.first < b->second.second && b->second.first < a->second.second) return true;
  return false;
}

TEST(Lanes, EachJobsTracerShareCountsAgainstTheBudget) {
  // Each fake task's estimate is 8 x 192 bytes: two fit in 4000 bytes, two with a tracer share of
  // 1000 bytes each do not, and the lanes take turns.
  for (const std::uint64_t tracer : {0ULL, 1000ULL}) {
    fake_harness h("");
    auto devices = fake_gpus(1);
    evaluator_setup setup{fake_harness::config(),   {.enabled = false}, {artifact_mode::none, false, {}},
                          json{{"backend", "cpu"}}, std::nullopt,       "t"};
    lane_set set(nullptr, fake_harness::options(), devices, 2, setup);
    set.prestart(candidate_kind::suite, false);
    std::ostringstream progress;
    progress_printer out(progress, false);
    runner r(set.evaluators(), nullptr, {}, out);
    r.set_memory_budget(4000, {}, tracer);
    const auto outcome = r.run(h.describe({"a", "b", "c", "d"}), fake_harness::suite_candidate, fake_harness::config());
    ASSERT_EQ(outcome.records.size(), 4u);
    EXPECT_EQ(evaluations_overlap(h), tracer == 0) << "tracer share " << tracer;
  }
}

TEST(Lanes, NoGpuWorkOfAnotherLaneDuringATimedSeries) {
  fake_harness h("");
  timing_options timing;
  timing.warmup = 3;
  timing.stopping = {.min_samples = 5, .min_time_s = 0.05, .max_noise = 0.05, .budget_s = 0.3};
  auto devices = fake_gpus(1);
  const auto run = run_lanes(h, devices, 3, h.describe({"a", "b", "c", "d", "e", "f"}), gpu_config(), timing);
  ASSERT_EQ(run.records.size(), 6u);
  // Which lane each worker process belongs to: the lane whose records' tasks it served.
  std::map<int, std::size_t> lane_of_pid;
  std::map<std::string, std::size_t> lane_of_task;
  for (const auto& record : run.records) lane_of_task[record.at("kernel_name")] = record.at("placement").at("lane");
  const auto log = h.requests();
  for (const auto& r : log)
    if (r.at("task").is_string() && lane_of_task.contains(r.at("task")))
      lane_of_pid[r.at("pid")] = lane_of_task[r.at("task")];
  // Each task's timed interval: from its first timed batch to its last. The first request of each
  // side is the untimed call made under a shared lease (compile, upload), and may overlap others.
  std::size_t intervals = 0;
  for (const auto& [task, lane] : lane_of_task) {
    double first = 1e300, last = 0;
    std::set<std::string> untimed_seen;
    for (const auto& r : log)
      if (r.at("task") == task && (r.at("cmd") == "time" || r.at("cmd") == "time_reference")) {
        if (untimed_seen.insert(r.at("cmd").get<std::string>()).second) continue;
        first = std::min(first, r.at("t").get<double>());
        last = std::max(last, r.at("t").get<double>());
      }
    if (last == 0) continue;
    ++intervals;
    for (const auto& r : log) {
      const double t = r.at("t");
      // Drawing inputs (reference, inputs_only) is host work and may overlap; the rest uses the device.
      const bool gpu_work = r.at("cmd") == "run" || r.at("cmd") == "compile" || r.at("cmd") == "time" ||
                            r.at("cmd") == "time_reference" ||
                            (r.at("cmd") == "reference" && !r.at("req").value("inputs_only", false));
      if (t > first && t < last && gpu_work && lane_of_pid.at(r.at("pid")) != lane)
        ADD_FAILURE() << "lane " << lane_of_pid.at(r.at("pid")) << " sent " << r.at("cmd") << " for " << r.at("task")
                      << " during " << task << "'s timed series (lane " << lane << ")";
    }
  }
  EXPECT_EQ(intervals, 6u);
  // The lanes did overlap outside timing: more than one lane served the run.
  std::set<std::size_t> lanes;
  for (const auto& [task, lane] : lane_of_task) lanes.insert(lane);
  EXPECT_GT(lanes.size(), 1u);
}

}  // namespace
}  // namespace pallasbench
