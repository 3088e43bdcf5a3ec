// The runner with the real evaluator and worker pool over scripted fake workers (fake_roles.py):
// records one by one, resume by config hash, Ctrl-C.
#include "pallasbench/orchestrate/runner.hpp"

#include <chrono>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "fake_roles.hpp"
#include "pallasbench/record/jsonl.hpp"

namespace pallasbench {
namespace {

using nlohmann::json;
using testing::contains;
using testing::fake_harness;
using testing::read_json_lines;


std::vector<std::string> names_of(const std::vector<json>& records) {
  std::vector<std::string> names;
  for (const auto& r : records) names.push_back(r.at("kernel_name"));
  return names;
}

// The first reference request of each task, in order.
std::vector<json> first_references(const fake_harness& h) {
  std::vector<json> out;
  std::set<std::string> seen;
  for (const auto& r : h.requests("reference", "reference"))
    if (seen.insert(r.at("task")).second) out.push_back(r);
  return out;
}

TEST(Runner, WritesEachRecordBeforeTheNextTaskStarts) {
  testing::temp_dir out;
  const auto path = out / "records.jsonl";
  fake_harness h("run_wrong:b", {{"FAKE_RECORDS", path.string()}});
  auto& eval = h.make_evaluator();
  const auto tasks = h.describe({"a", "b", "c"});
  std::ostringstream progress;
  progress_printer lines(progress, false);
  run_outcome outcome;
  {
    record_writer writer(path);
    runner run(eval, &writer, {}, lines);
    outcome = run.run(tasks, fake_harness::suite_candidate, fake_harness::config());
  }
  EXPECT_FALSE(outcome.interrupted);
  EXPECT_EQ(outcome.recorded, 0u);
  ASSERT_EQ(outcome.rows.size(), 3u);
  EXPECT_EQ(outcome.rows[0].status, task_status::ok);
  EXPECT_EQ(outcome.rows[1].status, task_status::incorrect);  // a failed task is recorded like any other
  EXPECT_EQ(outcome.rows[2].status, task_status::ok);

  const auto on_disk = read_json_lines(path);
  EXPECT_EQ(names_of(on_disk), (std::vector<std::string>{"a", "b", "c"}));
  ASSERT_EQ(outcome.records.size(), 3u);
  for (std::size_t i = 0; i < on_disk.size(); ++i) EXPECT_EQ(on_disk[i].at("uuid"), outcome.records[i].at("uuid"));
  // When each task started (its first reference request), the records file held every earlier
  // task's record, and only those.
  const auto starts = first_references(h);
  ASSERT_EQ(starts.size(), 3u);
  for (std::size_t i = 0; i < starts.size(); ++i) {
    EXPECT_EQ(starts[i].at("task"), tasks[i].name);
    EXPECT_EQ(starts[i].at("records_lines"), i) << starts[i].dump();
  }
  EXPECT_TRUE(contains(progress.str(), "[3/3]")) << progress.str();
}

TEST(Runner, ResumeSkipsTasksRecordedByConfigHash) {
  testing::temp_dir out;
  const auto path = out / "records.jsonl";
  fake_harness h("");
  auto& eval = h.make_evaluator();
  const auto tasks = h.describe({"a", "b", "c"});
  std::ostringstream progress;
  progress_printer lines(progress, false);
  {
    record_writer writer(path);
    runner first(eval, &writer, {}, lines);
    const auto outcome = first.run({tasks[0], tasks[1]}, fake_harness::suite_candidate, fake_harness::config());
    ASSERT_EQ(outcome.records.size(), 2u);
  }
  const auto before = read_json_lines(path);
  ASSERT_EQ(before.size(), 2u);

  h.clear_log();
  run_outcome outcome;
  {
    record_writer writer(path);
    runner resumed(eval, &writer, recorded_by_config_hash(path), lines);
    outcome = resumed.run(tasks, fake_harness::suite_candidate, fake_harness::config());
  }
  EXPECT_FALSE(outcome.interrupted);
  EXPECT_EQ(outcome.recorded, 2u);
  ASSERT_EQ(outcome.rows.size(), 3u);
  EXPECT_TRUE(outcome.rows[0].recorded);
  EXPECT_TRUE(outcome.rows[1].recorded);
  EXPECT_FALSE(outcome.rows[2].recorded);
  ASSERT_EQ(outcome.records.size(), 3u);
  EXPECT_EQ(outcome.records[0].at("uuid"), before[0].at("uuid"));  // the record as it stands
  EXPECT_EQ(outcome.records[1].at("uuid"), before[1].at("uuid"));
  // Only c was evaluated; the file gained its record alone.
  const auto starts = first_references(h);
  ASSERT_EQ(starts.size(), 1u);
  EXPECT_EQ(starts[0].at("task"), "c");
  EXPECT_EQ(names_of(read_json_lines(path)), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(contains(progress.str(), "a (small) recorded before: ok")) << progress.str();

  // Another configuration (here: another candidate hash) is another key: a is evaluated again.
  h.clear_log();
  runner other(eval, nullptr, recorded_by_config_hash(path), lines);
  const auto changed = other.run(
      {tasks[0]},
      [](const task_info& t) {
        auto c = fake_harness::suite_candidate(t);
        c.sha256 = std::string(64, '0');
        return c;
      },
      fake_harness::config());
  EXPECT_EQ(changed.recorded, 0u);
  EXPECT_EQ(first_references(h).size(), 1u);
  auto more_seeds = fake_harness::config();
  more_seeds.seeds = 3;
  h.clear_log();
  const auto reseeded = other.run({tasks[0]}, fake_harness::suite_candidate, more_seeds);
  EXPECT_EQ(reseeded.recorded, 0u);
  EXPECT_EQ(first_references(h).size(), 1u);
}

TEST(Runner, InterruptStopsAndTheTaskInFlightGetsNoRecord) {
  testing::temp_dir out;
  const auto path = out / "records.jsonl";
  // The fake executor sends SIGINT to this process while b runs, then hangs: Ctrl-C mid-task.
  fake_harness h("interrupt_run:b");
  const testing::scoped_interrupt_handlers handlers;
  auto& eval = h.make_evaluator();
  const auto tasks = h.describe({"a", "b", "c"});
  std::ostringstream progress;
  progress_printer lines(progress, false);
  run_outcome outcome;
  const auto t0 = std::chrono::steady_clock::now();
  {
    record_writer writer(path);
    runner run(eval, &writer, {}, lines);
    outcome = run.run(tasks, fake_harness::suite_candidate, fake_harness::config());
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(8));  // not the run's 10 s timeout
  EXPECT_TRUE(interrupted());
  EXPECT_TRUE(outcome.interrupted);
  EXPECT_EQ(names_of(outcome.records), (std::vector<std::string>{"a"}));
  EXPECT_EQ(names_of(read_json_lines(path)), (std::vector<std::string>{"a"}));  // a's record is on disk
  EXPECT_TRUE(contains(progress.str(), "b (small) interrupted: no record")) << progress.str();
  EXPECT_TRUE(h.requests("reference", "reference", "c").empty());  // c never started
  EXPECT_FALSE(h.requests("executor", "run", "b").empty());
}

// Remembers what the runner said its lanes were doing, and on which threads it said it.
class lanes_busy_log final : public printer {
public:
  std::vector<lane_activity> seen;
  std::set<std::thread::id> threads;

private:
  void do_lanes_busy(const std::vector<lane_activity>& busy) override {
    threads.insert(std::this_thread::get_id());
    seen.insert(seen.end(), busy.begin(), busy.end());
  }
};

TEST(Runner, TellsWhatTheBusyLaneIsDoingWhileItWaits) {
  // b's trace hangs until the 1 s timeout: the runner's ticks see its lane tracing it.
  fake_harness h("trace_hang:b");
  auto& eval = h.make_evaluator(fake_harness::config(1));
  const auto tasks = h.describe({"a", "b"});
  lanes_busy_log log;
  runner run(eval, nullptr, {}, log);
  const auto outcome = run.run(tasks, fake_harness::suite_candidate, fake_harness::config(1));
  ASSERT_EQ(outcome.rows.size(), 2u);
  EXPECT_EQ(outcome.rows[1].status, task_status::timeout);
  EXPECT_EQ(log.threads, std::set<std::thread::id>{std::this_thread::get_id()});  // the calling thread only
  std::size_t b_tracing = 0;
  for (const auto& busy : log.seen) {
    EXPECT_EQ(busy.lane, 0u);
    EXPECT_TRUE(busy.task == "a (small)" || busy.task == "b (small)") << busy.task;
    if (busy.task == "b (small)" && busy.phase == "trace") ++b_tracing;
  }
  EXPECT_GE(b_tracing, 3u);  // ticks every 100 ms through the second
}

}  // namespace
}  // namespace pallasbench
