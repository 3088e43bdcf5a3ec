#include "pallasbench/report/compare.hpp"

#include <sstream>

#include <gtest/gtest.h>

namespace pallasbench {
namespace {

using nlohmann::json;

// The shape of tests/fixtures/records/gpu_ok.jsonl, cut to what a comparison reads.
json record(const std::string& task, double median, double lo, double hi, const std::string& status = "ok",
            bool robust = true, const std::string& sha = "aaaa", const std::string& dtype = "float32") {
  json r{{"kernel_name", task},
         {"size", "small"},
         {"dtype", dtype},
         {"status", status},
         {"candidate", {{"kind", "suite"}, {"path", "/tasks/" + task + ".py"}, {"sha256", sha}}},
         {"result", {{"robustness_passed", robust}}},
         {"timing", {{"median_us", median}, {"ci95_us", {lo, hi}}, {"reference_median_us", 2.0}}}};
  return r;
}

// A record of a candidate that never traced: no timing, as in gpu_failures.jsonl; a record from
// before the dtype axis (no `dtype`), which ran at float32.
json failed(const std::string& task, const std::string& status, const std::string& sha = "aaaa") {
  return {{"kernel_name", task},
          {"size", "small"},
          {"status", status},
          {"candidate", {{"kind", "suite"}, {"sha256", sha}}},
          {"result", {{"robustness_passed", false}}},
          {"timing", nullptr},
          {"artifacts", {{"mode", "inline"}}}};
}

compare_verdict only_verdict(const json& base, const json& next, double threshold = 0.02) {
  const auto result = compare_records({base}, {next}, {.threshold = threshold});
  EXPECT_EQ(result.rows.size(), 1u);
  return result.rows.at(0).verdict;
}

TEST(RunCompare, SpeedVerdicts) {
  // 10% faster, intervals disjoint.
  EXPECT_EQ(only_verdict(record("relu", 100, 99, 101), record("relu", 90, 89, 91)), compare_verdict::faster);
  // 10% slower, intervals disjoint.
  EXPECT_EQ(only_verdict(record("relu", 100, 99, 101), record("relu", 110, 109, 111)), compare_verdict::slower);
  // 1% apart, disjoint intervals: within the threshold, so SAME however tight the intervals.
  EXPECT_EQ(only_verdict(record("relu", 100, 99.9, 100.1), record("relu", 101, 100.9, 101.1)), compare_verdict::same);
  // 10% slower but the intervals overlap: the noise could explain it.
  EXPECT_EQ(only_verdict(record("relu", 100, 90, 120), record("relu", 110, 95, 125)), compare_verdict::ambiguous);
}

TEST(RunCompare, ChangeIsRelativeToBase) {
  const auto result = compare_records({record("relu", 100, 99, 101)}, {record("relu", 90, 89, 91)});
  ASSERT_TRUE(result.rows[0].change.has_value());
  EXPECT_DOUBLE_EQ(*result.rows[0].change, -0.1);
  EXPECT_FALSE(result.regressed());
}

TEST(RunCompare, ThresholdBoundary) {
  // Exactly 2% is within the threshold (the difference must exceed it); just above is a verdict.
  EXPECT_EQ(only_verdict(record("relu", 100, 99.9, 100.1), record("relu", 102, 101.9, 102.1)), compare_verdict::same);
  EXPECT_EQ(only_verdict(record("relu", 100, 99.9, 100.1), record("relu", 102.5, 102.4, 102.6)),
            compare_verdict::slower);
  // A wider threshold turns the same pair SAME.
  EXPECT_EQ(only_verdict(record("relu", 100, 99.9, 100.1), record("relu", 102.5, 102.4, 102.6), 0.03),
            compare_verdict::same);
}

TEST(RunCompare, MissingIntervalIsAmbiguous) {
  auto next = record("relu", 150, 149, 151);
  next["timing"].erase("ci95_us");
  const auto result = compare_records({record("relu", 100, 99, 101)}, {next});
  EXPECT_EQ(result.rows[0].verdict, compare_verdict::ambiguous);
  EXPECT_NE(result.rows[0].note.find("no CI95 in new"), std::string::npos) << result.rows[0].note;
}

TEST(RunCompare, BrokeAndFixed) {
  // ok -> incorrect, the new record from before the dtype axis: float32, the same row.
  const auto broke = compare_records({record("relu", 100, 99, 101)}, {failed("relu", "incorrect")});
  ASSERT_EQ(broke.rows.size(), 1u);
  EXPECT_EQ(broke.rows[0].verdict, compare_verdict::broke);
  EXPECT_EQ(broke.rows[0].dtype, "float32");
  EXPECT_NE(broke.rows[0].note.find("status ok -> incorrect"), std::string::npos) << broke.rows[0].note;
  EXPECT_TRUE(broke.regressed());

  EXPECT_EQ(only_verdict(failed("relu", "crashed"), record("relu", 100, 99, 101)), compare_verdict::fixed);
  // Still ok, but no longer robust: BROKE too, even though it got faster.
  EXPECT_EQ(only_verdict(record("relu", 100, 99, 101), record("relu", 50, 49, 51, "ok", false)),
            compare_verdict::broke);
}

TEST(RunCompare, NoTiming) {
  // Failing on both sides: no median, so no speed verdict, but the status change is noted.
  const auto result = compare_records({failed("relu", "incorrect")}, {failed("relu", "crashed")});
  EXPECT_EQ(result.rows[0].verdict, compare_verdict::no_timing);
  EXPECT_FALSE(result.rows[0].change.has_value());
  EXPECT_EQ(result.rows[0].note, "status incorrect -> crashed");
  // Passing on both sides but run with --no-timing on one: no speed verdict either.
  auto untimed = record("relu", 100, 99, 101);
  untimed.erase("timing");
  EXPECT_EQ(only_verdict(record("relu", 100, 99, 101), untimed), compare_verdict::no_timing);
  EXPECT_FALSE(compare_records({failed("relu", "incorrect")}, {failed("relu", "crashed")}).regressed());
}

TEST(RunCompare, AddedAndRemovedByKey) {
  // Another candidate hash, another task, another dtype: none joins.
  const auto result = compare_records(
      {record("relu", 100, 99, 101), record("softmax", 10, 9, 11),
       record("exp", 5, 4, 6, "ok", true, "aaaa", "float32")},
      {record("relu", 100, 99, 101, "ok", true, "bbbb"), record("exp", 5, 4, 6, "ok", true, "aaaa", "bfloat16")});
  ASSERT_EQ(result.rows.size(), 5u);
  EXPECT_EQ(result.rows[0].verdict, compare_verdict::removed);  // relu aaaa
  EXPECT_EQ(result.rows[1].verdict, compare_verdict::removed);  // softmax
  EXPECT_EQ(result.rows[2].verdict, compare_verdict::removed);  // exp float32
  EXPECT_EQ(result.rows[3].verdict, compare_verdict::added);    // relu bbbb
  EXPECT_EQ(result.rows[3].candidate_sha256, "bbbb");
  EXPECT_EQ(result.rows[3].note, "candidate bbbb");           // the table's only way to tell candidates apart
  EXPECT_EQ(result.rows[4].verdict, compare_verdict::added);  // exp bfloat16
  EXPECT_EQ(result.rows[4].dtype, "bfloat16");
  EXPECT_FALSE(result.regressed());  // a removed row is not a regression by itself
}

TEST(RunCompare, TheRecordsVerdictAndDtypeAreReadNotRederived) {
  // The record's own `passed` decides BROKE, whatever its status and robustness would say.
  auto next = record("relu", 100, 99, 101);
  next["passed"] = false;
  EXPECT_EQ(only_verdict(record("relu", 100, 99, 101), next), compare_verdict::broke);
  // The dtype is the record's field, not its output's: an int32 output at a bfloat16 run is bfloat16.
  auto bf16 = record("one_hot", 5, 4, 6, "ok", true, "aaaa", "bfloat16");
  bf16["artifacts"] = {
      {"jaxpr_dag", {{"nodes", {{{"id", 1}, {"primitive", "output"}, {"outputs", {{{"dtype", "int32"}}}}}}}}}};
  EXPECT_EQ(compare_records({bf16}, {bf16}).rows.at(0).dtype, "bfloat16");
}

TEST(RunCompare, LaterRecordOfAKeyWins) {
  const auto result =
      compare_records({record("relu", 100, 99, 101), record("relu", 200, 199, 201)}, {record("relu", 200, 199, 201)});
  ASSERT_EQ(result.rows.size(), 1u);
  EXPECT_EQ(result.rows[0].verdict, compare_verdict::same);
}

// One run's record per median: a side of repetitions.
std::vector<std::vector<json>> runs_of(const std::vector<double>& medians, const std::string& timer = "cupti") {
  std::vector<std::vector<json>> runs;
  for (const double m : medians) {
    auto r = record("relu", m, m - 0.1, m + 0.1);  // tight intervals: each run alone looks certain
    r["timing"]["timer"] = timer;
    runs.push_back({r});
  }
  return runs;
}

TEST(RunCompare, RepetitionsUseTheUTestNotTheIntervals) {
  // Five runs a side, every NEW run slower than every BASE run: p = 2/252 (the exact tail).
  const auto slower = compare_runs(runs_of({100, 101, 102, 103, 104}), runs_of({120, 121, 122, 123, 124}));
  ASSERT_EQ(slower.rows.size(), 1u);
  EXPECT_EQ(slower.rows[0].verdict, compare_verdict::slower);
  ASSERT_TRUE(slower.rows[0].p_value.has_value());
  EXPECT_NEAR(*slower.rows[0].p_value, 2.0 / 252, 1e-12);
  EXPECT_DOUBLE_EQ(slower.rows[0].base->median_us.value(), 102);  // the median of the runs' medians
  EXPECT_DOUBLE_EQ(slower.rows[0].next->median_us.value(), 122);
  EXPECT_EQ(slower.rows[0].base->runs, 5);
  EXPECT_TRUE(slower.regressed());
  EXPECT_FALSE(slower.within_run_only());
  // Run-to-run noise: medians 10% apart, each run's CI95 disjoint from the other side's, but the runs
  // interleave (U = 12 of 25, p = 1): AMBIGUOUS, where one run a side would have said SLOWER.
  const auto noisy = compare_runs(runs_of({100, 130, 90, 125, 95}), runs_of({110, 92, 128, 99, 121}));
  EXPECT_EQ(noisy.rows[0].verdict, compare_verdict::ambiguous);
  EXPECT_GT(*noisy.rows[0].p_value, 0.05);
  EXPECT_FALSE(noisy.regressed());
  EXPECT_EQ(only_verdict(record("relu", 100, 99.9, 100.1), record("relu", 110, 109.9, 110.1)), compare_verdict::slower);
  // Within the threshold: SAME whatever p says.
  const auto same = compare_runs(runs_of({100, 100.1, 100.2}), runs_of({101, 101.1, 101.2}));
  EXPECT_EQ(same.rows[0].verdict, compare_verdict::same);
  EXPECT_TRUE(same.rows[0].p_value.has_value());
  // A stricter alpha turns the separated five a side (p = 0.0079) AMBIGUOUS.
  const auto strict = compare_runs(runs_of({100, 101, 102, 103, 104}), runs_of({120, 121, 122, 123, 124}),
                                   {.threshold = 0.02, .alpha = 0.005});
  EXPECT_EQ(strict.rows[0].verdict, compare_verdict::ambiguous);
}

TEST(RunCompare, OneFailingRepetitionBreaksTheSide) {
  auto next = runs_of({100, 100, 100});
  next[1][0] = failed("relu", "incorrect");
  const auto result = compare_runs(runs_of({100, 100, 100}), next);
  EXPECT_EQ(result.rows[0].verdict, compare_verdict::broke);
  EXPECT_EQ(result.rows[0].next->status, "incorrect");
  EXPECT_FALSE(result.rows[0].next->median_us.has_value());  // a run without a median: none for the side
}

TEST(RunCompare, WallClockTimingsAreNotCompared) {
  // The CPU's host clock: twice as slow and certain by both rules, yet no speed verdict.
  const auto result = compare_runs(runs_of({100, 101, 102}, "wall"), runs_of({200, 201, 202}, "wall"));
  EXPECT_EQ(result.rows[0].verdict, compare_verdict::wall_clock);
  EXPECT_EQ(result.rows[0].note, "wall clock, not compared");
  EXPECT_FALSE(result.regressed());
  auto wall = record("relu", 100, 99, 101);
  wall["timing"]["timer"] = "wall";
  auto wall_slow = record("relu", 200, 199, 201);
  wall_slow["timing"]["timer"] = "wall";
  EXPECT_EQ(only_verdict(wall, wall_slow), compare_verdict::wall_clock);
  // Correctness still counts: a wall-clock row that fails is BROKE.
  EXPECT_EQ(only_verdict(wall, failed("relu", "incorrect")), compare_verdict::broke);
}

TEST(RunCompare, SidesCarryTheRecordsSpeedupAndTheCandidatesName) {
  // The speedup is the record's (timing.speedup), never divided again; over runs the median of theirs.
  auto base = runs_of({100, 101, 102});
  for (std::size_t i = 0; i < base.size(); ++i) base[i][0]["timing"]["speedup"] = 1.5 + 0.25 * static_cast<double>(i);
  auto next = runs_of({100, 101});
  next[0][0]["timing"]["speedup"] = 3.0;  // one run without a speedup: none for the side
  auto result = compare_runs(base, next);
  EXPECT_DOUBLE_EQ(result.rows[0].base->speedup.value(), 1.75);
  EXPECT_FALSE(result.rows[0].next->speedup.has_value());
  EXPECT_EQ(result.to_json()["rows"][0]["base"]["speedup"], 1.75);
  EXPECT_TRUE(result.to_json()["rows"][0]["new"]["speedup"].is_null());
  EXPECT_EQ(result.rows[0].candidate, "");  // the suite's own kernel
  auto mine = record("relu", 100, 99, 101, "ok", true, "bbbb");
  mine["candidate"] = {{"kind", "user"}, {"path", "/home/me/relu_mine.py"}, {"sha256", "bbbb"}};
  auto requested = mine;
  requested["request_id"] = "attempt-2";
  requested["candidate"]["sha256"] = "cccc";
  result = compare_records({mine, requested}, {mine});
  EXPECT_EQ(result.rows[0].candidate, "relu_mine.py");
  EXPECT_EQ(result.to_json()["rows"][1]["candidate"], "attempt-2");
}

TEST(RunCompare, JsonAndMarkdown) {
  const auto result = compare_records({record("relu", 100, 99, 101), record("exp", 10, 9, 11)},
                                      {record("relu", 110, 109, 111), record("add", 1, 1, 1)});
  const auto j = result.to_json();
  ASSERT_EQ(j["rows"].size(), 3u);
  EXPECT_EQ(j["rows"][0]["verdict"], "SLOWER");
  EXPECT_EQ(j["rows"][0]["new"]["median_us"], 110.0);
  EXPECT_EQ(j["counts"]["SLOWER"], 1);
  EXPECT_EQ(j["counts"]["REMOVED"], 1);
  EXPECT_EQ(j["counts"]["ADDED"], 1);
  EXPECT_EQ(j["counts"]["SAME"], 0);
  std::ostringstream out;
  print_compare_markdown(out, result);
  EXPECT_NE(out.str().find("| relu | small | 100.000 us | 110.000 us | +10.00% | - | SLOWER |"), std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("one run a side"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("SLOWER: 1\n"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace pallasbench
