#include "pallasbench/measure/timing_replies.hpp"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

namespace pallasbench {
namespace {

using nlohmann::json;

// A CUPTI reply as the worker sends it: device samples, their host cost, clocks, kernels.
json cupti_reply(double us, std::size_t n) {
  json clocks = json::array();
  for (std::size_t i = 0; i < n; ++i) clocks.push_back(i == 0 ? json(nullptr) : json(1980));
  return {{"timer", "cupti"},
          {"samples_us", std::vector<double>(n, us)},
          {"cost_us", std::vector<double>(n, 100.0)},
          {"wall_us", std::vector<double>(n, 40.0)},
          {"span_us", std::vector<double>(n, us + 1)},
          {"sm_clock_mhz", clocks},
          {"kernels", {{"_body", {{"count", n}, {"total_us", us * static_cast<double>(n)}}}}},
          {"l2_flush_bytes", 125829120}};
}

TEST(TimingReplies, KernelsAddUpAcrossBatches) {
  side_sampling side(stdrel_options{});
  timing_result timing;
  add_timing_reply(cupti_reply(5.0, 3), side, timing);
  add_timing_reply(cupti_reply(5.0, 2), side, timing);
  EXPECT_EQ(side.rule.samples().size(), 5u);
  EXPECT_EQ(side.kept.kernels["_body"]["count"], 5);
  EXPECT_DOUBLE_EQ(side.kept.kernels["_body"]["total_us"].get<double>(), 25.0);
  EXPECT_EQ(timing.timer, "cupti");
  EXPECT_EQ(*timing.l2_flush_bytes, 125829120);
  ASSERT_EQ(side.kept.sm_clock_mhz.size(), 5u);
  EXPECT_TRUE(std::isnan(side.kept.sm_clock_mhz[0]));  // an unread clock stays unread
  EXPECT_DOUBLE_EQ(side.kept.wall_us[4], 40.0);
}

TEST(TimingReplies, CostNotSampleTimeFeedsTheTimeRules) {
  side_sampling side(stdrel_options{10, 0.25, 0.005, 1.0});
  timing_result timing;
  add_timing_reply(cupti_reply(5.0, 10), side, timing);
  EXPECT_DOUBLE_EQ(side.cost_us, 1000.0);
  EXPECT_DOUBLE_EQ(side.typical_cost_us(), 100.0);
  EXPECT_FALSE(side.rule.finished());  // 10 samples, but only 1 ms of the 0.25 s minimum
}

TEST(TimingReplies, WallRepliesCostWhatTheyMeasure) {
  side_sampling side(stdrel_options{});
  timing_result timing;
  add_timing_reply({{"timer", "wall"}, {"samples_us", {50.0, 70.0}}, {"timer_error", "no libcupti"}}, side, timing);
  EXPECT_DOUBLE_EQ(side.cost_us, 120.0);
  EXPECT_EQ(timing.timer, "wall");
  EXPECT_EQ(*timing.timer_error, "no libcupti");
  EXPECT_TRUE(side.kept.kernels.empty());
}

TEST(TimingReplies, SeriesOfTheWrongLengthAreRefused) {
  side_sampling side(stdrel_options{});
  timing_result timing;
  auto reply = cupti_reply(5.0, 3);
  reply["cost_us"] = {1.0};
  EXPECT_THROW(add_timing_reply(reply, side, timing), std::runtime_error);
  reply = cupti_reply(5.0, 3);
  reply["span_us"] = {1.0, 2.0};
  EXPECT_THROW(add_timing_reply(reply, side, timing), std::runtime_error);
}

TEST(TimingReplies, BatchesAimAtTheirShareOfHostTime) {
  EXPECT_EQ(batch_size(0, 0.05, 10), 10);       // first batch: the sample minimum
  EXPECT_EQ(batch_size(100.0, 0.05, 10), 500);  // 100 us a sample: 500 in 50 ms
  EXPECT_EQ(batch_size(1.0, 0.05, 10), 1000);   // capped
  EXPECT_EQ(batch_size(1e6, 0.05, 10), 1);      // a 1 s sample: one at a time
}

TEST(TimingReplies, RechecksTheFirstBatchThenEveryPowerOfTwo) {
  std::vector<int> rechecked;
  for (int batch = 0; batch <= 40; ++batch)
    if (rechecked_batch(batch)) rechecked.push_back(batch);
  EXPECT_EQ(rechecked, (std::vector<int>{1, 2, 4, 8, 16, 32}));
  EXPECT_FALSE(rechecked_batch(-4));
}

}  // namespace
}  // namespace pallasbench
