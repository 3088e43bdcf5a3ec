// The device token: shared leases overlap, an exclusive one overlaps nothing, a waiting exclusive
// lease is not starved by a stream of shared ones, and waits count as the `wait` phase.
#include "pallasbench/orchestrate/device_token.hpp"

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace pallasbench {
namespace {

using namespace std::chrono_literals;

TEST(DeviceToken, SharedLeasesOverlap) {
  device_token token;
  auto a = token.shared();
  auto b = token.shared();
  EXPECT_EQ(token.shared_holders(), 2u);
  EXPECT_FALSE(token.exclusive_held());
}

TEST(DeviceToken, ExclusiveWaitsForSharedAndBlocksNewShared) {
  device_token token;
  std::atomic<bool> exclusive_granted = false, late_shared_granted = false;
  std::optional<device_token::lease> early(token.shared());
  std::jthread timer([&] {
    const auto lease = token.exclusive();
    exclusive_granted = true;
    std::this_thread::sleep_for(50ms);
    // No shared lease was granted while this one was held.
    EXPECT_FALSE(late_shared_granted.load());
    exclusive_granted = false;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(exclusive_granted.load()) << "granted while a shared lease was out";
  // A shared lease asked for after the exclusive one queued waits behind it.
  std::jthread checker([&] {
    const auto lease = token.shared();
    late_shared_granted = true;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(late_shared_granted.load()) << "a new shared lease overtook the queued exclusive one";
  early.reset();
  timer.join();
  checker.join();
  EXPECT_TRUE(late_shared_granted.load());
  EXPECT_EQ(token.shared_holders(), 0u);
}

TEST(DeviceToken, ExclusiveLeasesNeverOverlapAndAllAreServed) {
  device_token token;
  std::atomic<int> inside = 0, most = 0, served = 0;
  std::vector<std::jthread> threads;
  for (int t = 0; t < 6; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        if ((i + t) % 3 == 0) {
          const auto lease = token.exclusive();
          const int now = ++inside;
          most = std::max(most.load(), now);
          std::this_thread::sleep_for(100us);
          --inside;
          ++served;
        } else {
          const auto lease = token.shared();
          EXPECT_FALSE(token.exclusive_held());
          std::this_thread::sleep_for(50us);
        }
      }
    });
  threads.clear();  // joins
  EXPECT_EQ(most.load(), 1);
  EXPECT_EQ(served.load(), 40);  // 6 threads x 20, every third exclusive
  EXPECT_EQ(token.shared_holders(), 0u);
  EXPECT_FALSE(token.exclusive_held());
}

TEST(DeviceToken, TheWaitCountsAsTheWaitPhase) {
  device_token token;
  phase_clock clock;
  clock.start(work_phase::timing);
  std::optional<device_token::lease> held(token.shared());
  std::jthread release([&] {
    std::this_thread::sleep_for(80ms);
    held.reset();
  });
  { const auto lease = token.exclusive(&clock); }
  release.join();
  clock.stop();
  EXPECT_GE(clock.seconds(work_phase::wait), 0.07);
  EXPECT_LT(clock.seconds(work_phase::timing), 0.05);  // the phase that asked paused while it waited
  EXPECT_NEAR(clock.total_seconds(), clock.seconds(work_phase::wait) + clock.seconds(work_phase::timing), 1e-9);
}

}  // namespace
}  // namespace pallasbench
