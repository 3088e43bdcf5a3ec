#include "pallasbench/measure/metrics.hpp"

#include <gtest/gtest.h>

#include "pallasbench/measure/statistics.hpp"

namespace pallasbench {
namespace {

timing_result device_timed(double kernel_us, double reference_us) {
  timing_result t;
  t.timer = "cupti";
  t.kernel.series = timed_series{summarize(std::vector<double>(21, kernel_us)), true, "converged"};
  t.reference = timed_side{timed_series{summarize(std::vector<double>(21, reference_us)), true, "converged"}};
  return t;
}

TEST(Metrics, SpeedupOnlyFromDeviceTime) {
  auto t = device_timed(100, 150);
  ASSERT_TRUE(speedup(t));
  EXPECT_DOUBLE_EQ(speedup(t)->value, 1.5);
  t.timer = "wall";
  EXPECT_FALSE(speedup(t));
  t.timer = "cupti";
  t.reference.reset();
  EXPECT_FALSE(speedup(t));
}

TEST(Metrics, SpeedupIntervalIsTheRatioOfOppositeEnds) {
  timing_result t;
  t.timer = "cupti";
  t.kernel.series.summary.median = 10;
  t.kernel.series.summary.median_ci95_lo = 9;
  t.kernel.series.summary.median_ci95_hi = 12;
  t.reference = timed_side{};
  t.reference->series.summary.median = 20;
  t.reference->series.summary.median_ci95_lo = 18;
  t.reference->series.summary.median_ci95_hi = 24;
  const auto s = speedup(t);
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(s->ci95_lo, 18.0 / 12);
  EXPECT_DOUBLE_EQ(s->ci95_hi, 24.0 / 9);
}

TEST(Metrics, ThrottledSamplesAgainstTheMaximumClock) {
  timed_side side;
  side.sm_clock_mhz = {1980, 1500, std::numeric_limits<double>::quiet_NaN(), 1980};
  const auto clock = sm_clock(side, 1980.0);
  ASSERT_TRUE(clock);
  EXPECT_EQ(clock->throttled_samples, 1u);
  EXPECT_EQ(clock->unread_samples, 1u);
  EXPECT_DOUBLE_EQ(clock->min_mhz, 1500);
  EXPECT_FALSE(sm_clock(side, std::nullopt)->throttled_samples);
  EXPECT_FALSE(sm_clock(timed_side{}, 1980.0));
}

TEST(Metrics, KernelSharesLargestFirst) {
  const auto shares = kernel_shares({{"a", {{"count", 2}, {"total_us", 25.0}}}, {"b", {{"count", 2}, {"total_us", 75.0}}}});
  ASSERT_EQ(shares.size(), 2u);
  EXPECT_EQ(shares[0].name, "b");
  EXPECT_DOUBLE_EQ(*shares[0].share, 0.75);
  EXPECT_FALSE(kernel_shares({{"idle", {{"count", 1}, {"total_us", 0.0}}}})[0].share);
}

TEST(Metrics, RooflineNeedsDeviceTimeAndPositiveCeilings) {
  const nlohmann::json ceilings = {{"copy", {{"gbps", 4000.0}}}, {"matmul_f32", {{"tflops", 0.0}}}};
  const work_counts work{2e9, 1e8, false, false};
  const auto r = roofline(work, device_timed(100, 150), ceilings);
  EXPECT_NEAR(*r.tflops, 20.0, 1e-9);
  EXPECT_NEAR(*r.pct_peak_bandwidth, 25.0, 1e-9);
  EXPECT_FALSE(r.pct_peak_flops);  // a zero ceiling is no ceiling
  auto wall = device_timed(100, 150);
  wall.timer = "wall";
  EXPECT_FALSE(roofline(work, wall, ceilings).tflops);
  EXPECT_FALSE(roofline(work, std::nullopt, ceilings).gbps);
}

TEST(Metrics, TheRunsDtypeChoosesTheComputeRoof) {
  const nlohmann::json ceilings = {{"copy", {{"gbps", 4000.0}}},
                                   {"matmul_f32", {{"tflops", 50.0}}},
                                   {"matmul_tf32", {{"tflops", 400.0}}},
                                   {"matmul_bf16", {{"tflops", 800.0}}}};
  work_counts work{2e9, 1e8, false, false};
  EXPECT_EQ(*roofline(work, device_timed(100, 150), ceilings).flops_ceiling, "matmul_f32");
  work.uses_tf32 = true;
  EXPECT_EQ(*roofline(work, device_timed(100, 150), ceilings).flops_ceiling, "matmul_tf32");
  work.flops_ceiling = "matmul_bf16";  // --dtype bfloat16
  const auto r = roofline(work, device_timed(100, 150), ceilings);
  EXPECT_EQ(*r.flops_ceiling, "matmul_bf16");
  EXPECT_NEAR(*r.pct_peak_flops, 100 * 20.0 / 800, 1e-9);
  work.flops_ceiling = "matmul_f16";  // not measured: no percentage rather than another dtype's
  EXPECT_FALSE(roofline(work, device_timed(100, 150), ceilings).pct_peak_flops);
}

}  // namespace
}  // namespace pallasbench
