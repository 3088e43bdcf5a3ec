// The run trace writes Chrome trace events: complete spans in microseconds since the trace began,
// track names as metadata, from any thread.
#include "pallasbench/orchestrate/run_trace.hpp"

#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "pallasbench/core/error.hpp"

namespace pallasbench {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

TEST(RunTrace, SpansAreCompleteEventsInMicrosecondsSinceTheStart) {
  run_trace trace;
  const auto t0 = run_trace::clock::now();
  trace.name_track(3, "lane 2 (device 0)");
  trace.span(3, "compile", "phase", t0 + 1ms, t0 + 3ms, {{"task", "add (small)"}});
  { const trace_step step(&trace, 0, "setup step"); }
  { const trace_step nothing(nullptr, 0, "not traced"); }
  const auto events = trace.to_json().at("traceEvents");
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(
      events[0],
      (json{{"ph", "M"}, {"name", "thread_name"}, {"pid", 1}, {"tid", 3}, {"args", {{"name", "lane 2 (device 0)"}}}}));
  const auto& span = events[1];
  EXPECT_EQ(span.at("ph"), "X");
  EXPECT_EQ(span.at("name"), "compile");
  EXPECT_EQ(span.at("cat"), "phase");
  EXPECT_EQ(span.at("tid"), 3);
  EXPECT_NEAR(span.at("dur").get<double>(), 2000.0, 1e-6);
  EXPECT_GE(span.at("ts").get<double>(), 1000.0);
  EXPECT_EQ(span.at("args").at("task"), "add (small)");
  EXPECT_EQ(events[2].at("name"), "setup step");
  EXPECT_EQ(events[2].at("cat"), "setup");
  EXPECT_FALSE(events[2].contains("args"));
}

TEST(RunTrace, ThreadsAddSpansAtOnce) {
  run_trace trace;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&trace, t] {
      for (int k = 0; k < 250; ++k) trace.span(t, "checks", "phase", run_trace::clock::now(), run_trace::clock::now());
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(trace.to_json().at("traceEvents").size(), 1000u);
}

TEST(RunTrace, WritesAFileOrSaysWhichItCouldNot) {
  const auto dir = std::filesystem::temp_directory_path() / "pallasbench_test_run_trace";
  std::filesystem::create_directories(dir);
  run_trace trace;
  trace.name_track(0, "harness");
  trace.write(dir / "trace.json");
  std::ifstream in(dir / "trace.json");
  EXPECT_EQ(json::parse(in).at("traceEvents").size(), 1u);
  try {
    trace.write(dir / "missing" / "trace.json");
    FAIL() << "wrote into a missing folder";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("missing/trace.json"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pallasbench
