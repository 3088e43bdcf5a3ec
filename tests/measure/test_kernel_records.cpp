#include "pallasbench/measure/kernel_records.hpp"

#include <gtest/gtest.h>

namespace pallasbench {
namespace {

activity_record kernel(const std::string& name, std::uint64_t start, std::uint64_t end) {
  return {activity_kind::kernel, name, start, end};
}

TEST(KernelRecords, SumsAndSpansPerSample) {
  // Two samples of two kernels each, with a gap between the kernels of the first.
  const std::vector<time_window> windows{{1'000, 10'000}, {20'000, 30'000}};
  const auto g = group_by_sample({kernel("triton_a", 2'000, 3'000), kernel("triton_b", 5'000, 6'500),
                                  kernel("triton_a", 21'000, 22'000), kernel("triton_b", 22'000, 23'500)},
                                 windows);
  ASSERT_EQ(g.samples.size(), 2u);
  EXPECT_DOUBLE_EQ(g.samples[0].sum_us, 2.5);
  EXPECT_DOUBLE_EQ(g.samples[0].span_us, 4.5);
  EXPECT_DOUBLE_EQ(g.samples[1].sum_us, 2.5);
  EXPECT_DOUBLE_EQ(g.samples[1].span_us, 2.5);
  EXPECT_EQ(g.samples[0].kernels.at("triton_a"), 1);
  EXPECT_DOUBLE_EQ(g.samples[0].kernel_us.at("triton_a"), 1.0);
  EXPECT_DOUBLE_EQ(g.samples[0].kernel_us.at("triton_b"), 1.5);
  EXPECT_EQ(g.outside, 0u);
}

TEST(KernelRecords, EachSampleKeepsItsLaunchesWithTheirGeometry) {
  const std::vector<time_window> windows{{1'000, 10'000}, {20'000, 30'000}};
  auto a = kernel("triton_a", 2'000, 3'000);
  a.grid = {64, 2, 1};
  a.threads = 256;
  const auto g = group_by_sample({a, kernel("triton_b", 21'000, 22'000)}, windows);
  ASSERT_EQ(g.samples[0].launches.size(), 1u);
  EXPECT_EQ(g.samples[0].launches[0].name, "triton_a");
  EXPECT_EQ(g.samples[0].launches[0].grid[1], 2);
  EXPECT_EQ(g.samples[0].launches[0].threads, 256);
  ASSERT_EQ(g.samples[1].launches.size(), 1u);
  EXPECT_EQ(g.samples[1].launches[0].name, "triton_b");
}

TEST(KernelRecords, FlushBetweenSamplesIsExcluded) {
  const std::vector<time_window> windows{{1'000, 2'000}, {5'000, 6'000}};
  const auto g = group_by_sample({kernel("l2_flush_memset", 2'500, 4'500),
                                  kernel("k", 1'200, 1'800),
                                  kernel("k", 5'100, 5'900),
                                  {activity_kind::memset, "memset", 3'000, 3'100}},
                                 windows);
  EXPECT_EQ(g.outside, 2u);
  EXPECT_DOUBLE_EQ(g.samples[0].sum_us, 0.6);
  EXPECT_DOUBLE_EQ(g.samples[1].sum_us, 0.8);
  EXPECT_EQ(g.samples[0].kernels.count("l2_flush_memset"), 0u);
}

TEST(KernelRecords, UnorderedRecordsAndStraddlers) {
  const std::vector<time_window> windows{{100, 200}, {300, 400}};
  const auto g = group_by_sample(
      {kernel("late", 350, 390), kernel("cross", 180, 250), kernel("early", 110, 150), kernel("before", 10, 20)},
      windows);
  EXPECT_EQ(g.straddling, 1u);
  EXPECT_EQ(g.outside, 1u);
  EXPECT_EQ(g.samples[0].activities, 1u);
  EXPECT_EQ(g.samples[1].activities, 1u);
}

TEST(KernelRecords, MemcpyCountsInTimeNotAsKernel) {
  const auto g = group_by_sample({{activity_kind::memcpy, "memcpy DtoD", 10, 30}, kernel("k", 40, 50)}, {{0, 100}});
  EXPECT_DOUBLE_EQ(g.samples[0].sum_us, 0.03);
  EXPECT_DOUBLE_EQ(g.samples[0].span_us, 0.04);
  EXPECT_EQ(g.samples[0].kernels.size(), 1u);
}

TEST(KernelRecords, EmptySampleHasZeroTime) {
  const auto g = group_by_sample({}, {{0, 10}});
  EXPECT_EQ(g.samples[0].activities, 0u);
  EXPECT_DOUBLE_EQ(g.samples[0].span_us, 0.0);
}

}  // namespace
}  // namespace pallasbench
