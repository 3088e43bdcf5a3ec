// The phase clock partitions wall time: nested scopes pause the phase they interrupt, and the
// phases add up to the time the clock ran.
#include "pallasbench/orchestrate/phase_clock.hpp"

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace pallasbench {
namespace {

using namespace std::chrono_literals;

TEST(PhaseClock, ScopesPartitionTheWallTime) {
  phase_clock clock;
  const auto t0 = phase_clock::clock::now();
  clock.start(work_phase::checks);
  std::this_thread::sleep_for(20ms);
  {
    const auto tracing = clock.enter(work_phase::trace);
    std::this_thread::sleep_for(30ms);
    {
      const auto waiting = clock.enter(work_phase::wait);
      std::this_thread::sleep_for(40ms);
    }
    std::this_thread::sleep_for(10ms);
  }
  std::this_thread::sleep_for(20ms);
  clock.stop();
  const double wall = std::chrono::duration<double>(phase_clock::clock::now() - t0).count();
  EXPECT_NEAR(clock.seconds(work_phase::checks), 0.040, 0.015);
  EXPECT_NEAR(clock.seconds(work_phase::trace), 0.040, 0.015);
  EXPECT_NEAR(clock.seconds(work_phase::wait), 0.040, 0.015);
  EXPECT_EQ(clock.seconds(work_phase::timing), 0.0);
  EXPECT_LE(clock.total_seconds(), wall);
  EXPECT_GT(clock.total_seconds(), 0.95 * wall);
}

TEST(PhaseClock, SegmentsGoToTheListenerInOrderAndAddUpToTheTotals) {
  phase_clock clock;
  struct segment {
    work_phase phase;
    phase_clock::clock::time_point begin, end;
  };
  std::vector<segment> segments;
  clock.on_segment([&](work_phase p, auto begin, auto end) { segments.push_back({p, begin, end}); });
  clock.start(work_phase::checks);
  std::this_thread::sleep_for(5ms);
  {
    const auto tracing = clock.enter(work_phase::trace);
    std::this_thread::sleep_for(5ms);
  }
  std::this_thread::sleep_for(5ms);
  clock.stop();
  ASSERT_EQ(segments.size(), 3u);
  EXPECT_EQ(segments[0].phase, work_phase::checks);
  EXPECT_EQ(segments[1].phase, work_phase::trace);
  EXPECT_EQ(segments[2].phase, work_phase::checks);
  for (std::size_t k = 1; k < segments.size(); ++k) EXPECT_EQ(segments[k].begin, segments[k - 1].end);  // contiguous
  const auto seconds = [](const segment& s) { return std::chrono::duration<double>(s.end - s.begin).count(); };
  EXPECT_DOUBLE_EQ(seconds(segments[0]) + seconds(segments[2]), clock.seconds(work_phase::checks));
  EXPECT_DOUBLE_EQ(seconds(segments[1]), clock.seconds(work_phase::trace));
}

TEST(PhaseClock, StartClearsAndJsonNamesEveryPhase) {
  phase_clock clock;
  clock.start(work_phase::timing);
  std::this_thread::sleep_for(5ms);
  clock.start(work_phase::reference);
  clock.stop();
  EXPECT_EQ(clock.seconds(work_phase::timing), 0.0);
  const auto j = clock.to_json();
  EXPECT_EQ(j.size(), k_work_phases);
  for (const auto* key :
       {"reference_s", "trace_s", "compile_s", "checks_s", "filters_s", "artifacts_s", "timing_s", "wait_s"})
    EXPECT_TRUE(j.contains(key)) << key;
}

TEST(PhaseClock, AStoppedClockCountsNothingUntilAScope) {
  phase_clock clock;
  clock.start(work_phase::checks);
  clock.stop();
  std::this_thread::sleep_for(20ms);
  EXPECT_LT(clock.total_seconds(), 0.005);
  {
    const auto s = clock.enter(work_phase::filters);
    std::this_thread::sleep_for(10ms);
  }
  std::this_thread::sleep_for(20ms);  // stopped again after the scope
  EXPECT_NEAR(clock.total_seconds(), 0.010, 0.008);
}

TEST(PhaseClock, CurrentIsThePhaseCountingNow) {
  phase_clock clock;
  EXPECT_FALSE(clock.current().has_value());
  clock.start(work_phase::checks);
  EXPECT_EQ(clock.current(), work_phase::checks);
  {
    const auto tracing = clock.enter(work_phase::trace);
    EXPECT_EQ(clock.current(), work_phase::trace);
    {
      const auto waiting = clock.enter(work_phase::wait);
      EXPECT_EQ(clock.current(), work_phase::wait);
    }
    EXPECT_EQ(clock.current(), work_phase::trace);
  }
  EXPECT_EQ(clock.current(), work_phase::checks);
  clock.stop();
  EXPECT_FALSE(clock.current().has_value());
  {
    const auto timing = clock.enter(work_phase::timing);  // a scope runs a stopped clock
    EXPECT_EQ(clock.current(), work_phase::timing);
  }
  EXPECT_FALSE(clock.current().has_value());
}

TEST(PhaseClock, CurrentIsReadFromAnotherThread) {
  phase_clock clock;
  clock.start(work_phase::checks);
  std::atomic<bool> done = false;
  std::atomic<int> seen_compile = 0;
  std::jthread reader([&] {
    while (!done.load()) {
      const auto phase = clock.current();
      ASSERT_TRUE(phase.has_value());  // never a torn or stopped value while the clock runs
      if (*phase == work_phase::compile) seen_compile.store(1);
    }
  });
  for (int i = 0; i < 2000; ++i) {
    const auto compiling = clock.enter(work_phase::compile);
    std::this_thread::sleep_for(std::chrono::microseconds(i % 50 == 0 ? 1000 : 0));
  }
  done.store(true);
  reader.join();
  EXPECT_EQ(seen_compile.load(), 1);
}

}  // namespace
}  // namespace pallasbench
