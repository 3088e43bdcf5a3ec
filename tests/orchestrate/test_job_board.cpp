#include "pallasbench/orchestrate/job_board.hpp"

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include <gtest/gtest.h>

namespace pallasbench {
namespace {

using namespace std::chrono_literals;

constexpr std::uint64_t k_gib = 1ULL << 30;

// Settles a job from another thread (settle waits until the emitting side has handled it).
std::future<void> settle_async(job_board& board, std::size_t index) {
  return std::async(std::launch::async, [&board, index] { board.settle(index, settled_job{}); });
}

void drain(job_board& board) {
  for (int i = 0; i < 50; ++i) {
    (void)board.collect(10ms);
    board.handled();
  }
}

TEST(JobBoard, WithoutABudgetJobsAreTakenInOrder) {
  job_board board({0, 1, 2}, {50 * k_gib, 50 * k_gib, 50 * k_gib});
  EXPECT_EQ(board.take(), 0u);
  EXPECT_EQ(board.take(), 1u);
  EXPECT_EQ(board.take(), 2u);
  EXPECT_EQ(board.take(), std::nullopt);
  EXPECT_EQ(board.memory_waits(), 0u);
}

TEST(JobBoard, AJobThatDoesNotFitLetsALaterOneThatFitsGoFirst) {
  // 100 GiB budget: 60 in flight, the next needs 60, the one after 30.
  job_board board({0, 1, 2}, {60 * k_gib, 60 * k_gib, 30 * k_gib}, 100 * k_gib);
  EXPECT_EQ(board.take(), 0u);
  EXPECT_EQ(board.take(), 2u);
}

TEST(JobBoard, ALaneWaitsForMemoryUntilAJobSettles) {
  job_board board({0, 1}, {60 * k_gib, 60 * k_gib}, 100 * k_gib);
  ASSERT_EQ(board.take(), 0u);
  auto second = std::async(std::launch::async, [&] { return board.take(); });
  EXPECT_EQ(second.wait_for(200ms), std::future_status::timeout);  // 120 GiB would not fit
  for (int i = 0; i < 500 && board.memory_waits() == 0; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_GE(board.memory_waits(), 1u);  // it waited (polled: a loaded machine starts threads late)
  auto settled = settle_async(board, 0);
  drain(board);
  settled.get();
  ASSERT_EQ(second.wait_for(2s), std::future_status::ready);
  EXPECT_EQ(second.get(), 1u);
}

TEST(JobBoard, AJobLargerThanTheBudgetRunsAlone) {
  job_board board({0, 1}, {500 * k_gib, 1 * k_gib}, 100 * k_gib);
  EXPECT_EQ(board.take(), 0u);  // nothing in flight: it runs, or it never would
  auto next = std::async(std::launch::async, [&] { return board.take(); });
  EXPECT_EQ(next.wait_for(200ms), std::future_status::timeout);  // not beside it
  auto settled = settle_async(board, 0);
  drain(board);
  settled.get();
  EXPECT_EQ(next.get(), 1u);
}

TEST(JobBoard, StoppingReleasesAWaitingLane) {
  job_board board({0, 1}, {60 * k_gib, 60 * k_gib}, 100 * k_gib);
  ASSERT_EQ(board.take(), 0u);
  auto waiting = std::async(std::launch::async, [&] { return board.take(); });
  EXPECT_EQ(waiting.wait_for(100ms), std::future_status::timeout);
  board.stop();
  ASSERT_EQ(waiting.wait_for(2s), std::future_status::ready);
  EXPECT_EQ(waiting.get(), std::nullopt);
  EXPECT_FALSE(board.finished());  // job 0 is still in flight
}

// A host whose available memory the test sets (read at each take).
struct fake_host {
  std::atomic<std::uint64_t> available{0};
  std::atomic<int> reads{0};
  live_memory live(std::uint64_t reserve) {
    return {[this]() -> std::optional<std::uint64_t> {
              ++reads;
              return available.load();
            },
            reserve};
  }
};

TEST(JobBoard, TheLiveLimitHoldsBackWhatTheStartsBudgetWouldAdmit) {
  // Budget 100 GiB from the start's reading; since then the host lost 50 GiB (workers grew):
  // 40 in flight and 40 more fit the budget, not the 60 available less a 10 GiB reserve.
  fake_host host;
  host.available = 60 * k_gib;
  job_board board({0, 1, 2}, {40 * k_gib, 40 * k_gib, 10 * k_gib}, 100 * k_gib, host.live(10 * k_gib));
  EXPECT_EQ(board.take(), 0u);  // nothing in flight: not even read
  EXPECT_EQ(host.reads.load(), 0);
  EXPECT_EQ(board.take(), 2u);  // 40 + 10 <= 60 - 10: the small one goes first
  EXPECT_GE(host.reads.load(), 1);
}

TEST(JobBoard, ALaneWaitingOnTheLiveLimitTakesTheJobOnceMemoryComesBack) {
  fake_host host;
  host.available = 50 * k_gib;
  job_board board({0, 1}, {30 * k_gib, 30 * k_gib}, 100 * k_gib, host.live(0));
  ASSERT_EQ(board.take(), 0u);
  auto second = std::async(std::launch::async, [&] { return board.take(); });
  EXPECT_EQ(second.wait_for(200ms), std::future_status::timeout);  // 60 > 50 available
  host.available = 80 * k_gib;                                     // no job settled: the lane reads again by itself
  ASSERT_EQ(second.wait_for(5s), std::future_status::ready);
  EXPECT_EQ(second.get(), 1u);
  EXPECT_GE(board.memory_waits(), 1u);
}

TEST(JobBoard, AnUnreadableHostLeavesTheBudgetAlone) {
  job_board board({0, 1}, {40 * k_gib, 40 * k_gib}, 100 * k_gib, {[] { return std::optional<std::uint64_t>(); }, 0});
  EXPECT_EQ(board.take(), 0u);
  EXPECT_EQ(board.take(), 1u);
}

TEST(JobBoard, AHostBelowItsReserveStillRunsOneJob) {
  fake_host host;
  host.available = 1 * k_gib;
  job_board board({0, 1}, {1, 1}, 100 * k_gib, host.live(10 * k_gib));
  EXPECT_EQ(board.take(), 0u);  // alone, or never
  auto second = std::async(std::launch::async, [&] { return board.take(); });
  EXPECT_EQ(second.wait_for(200ms), std::future_status::timeout);
  auto settled = settle_async(board, 0);
  drain(board);
  settled.get();
  ASSERT_EQ(second.wait_for(5s), std::future_status::ready);
  EXPECT_EQ(second.get(), 1u);
}

}  // namespace
}  // namespace pallasbench
