#include "pallasbench/measure/stopping.hpp"

#include <random>

#include <gtest/gtest.h>

namespace pallasbench {
namespace {

TEST(Stdrel, QuietStreamConvergesAfterMinimums) {
  stdrel_criterion c({10, 0.25, 0.005, 5.0});
  std::size_t added = 0;
  while (!c.finished()) {
    c.add(50'000.0 + static_cast<double>(added % 3));  // 50 ms, noise ~0.002%
    ++added;
  }
  EXPECT_TRUE(c.converged());
  EXPECT_EQ(added, 10u);  // the sample minimum binds (10 x 50 ms covers 0.25 s)
  EXPECT_NE(c.state().find("converged"), std::string::npos);
}

TEST(Stdrel, MinimumTimeBindsForShortSamples) {
  stdrel_criterion c({10, 0.25, 0.005, 5.0});
  std::size_t added = 0;
  while (!c.finished()) {
    c.add(10.0);  // 10 us: 25'000 samples make 0.25 s
    ++added;
  }
  EXPECT_TRUE(c.converged());
  EXPECT_EQ(added, 25'000u);
}

TEST(Stdrel, NoisyStreamNeverConvergesAndStopsAtBudget) {
  stdrel_criterion c({10, 0.25, 0.005, 1.0});
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> wide(500.0, 1500.0);  // noise ~29%
  std::size_t added = 0;
  while (!c.finished()) {
    c.add(wide(rng));
    ++added;
  }
  EXPECT_FALSE(c.converged());
  EXPECT_NEAR(static_cast<double>(added), 1000.0, 60.0);  // ~1 s of 1 ms samples
  EXPECT_NE(c.state().find("budget of 1.00 s spent"), std::string::npos) << c.state();
}

TEST(Stdrel, TimeRulesCountSamplingCostNotSampleTime) {
  // Device-timed samples: 5 us kernels, each sample costing 100 us of host time (flush, dispatch).
  stdrel_criterion c({10, 0.25, 0.005, 1.0});
  std::size_t added = 0;
  while (!c.finished()) {
    c.add(5.0, 100.0);
    ++added;
  }
  EXPECT_TRUE(c.converged());
  EXPECT_EQ(added, 2'500u);  // 0.25 s of cost, not 50'000 samples of 5 us
}

TEST(Stdrel, CostlySamplesSpendTheBudget) {
  stdrel_criterion c({10, 0.25, 0.005, 0.5});
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> wide(2.0, 8.0);
  std::size_t added = 0;
  while (!c.finished()) {
    c.add(wide(rng), 1'000.0);
    ++added;
  }
  EXPECT_FALSE(c.converged());
  EXPECT_EQ(added, 500u);
}

TEST(Stdrel, SettlingStreamConvergesOnceNoiseFalls) {
  // A noisy warm phase, then steady samples: convergence waits for the mixture to settle (the
  // noise rule alone: the median's exit off).
  stdrel_criterion c({10, 0.0, 0.005, 100.0, 0.0});
  for (int i = 0; i < 10; ++i) c.add(i % 2 ? 120.0 : 80.0);
  EXPECT_FALSE(c.finished());
  std::size_t added = 0;
  while (!c.finished()) {
    c.add(100.0);
    ++added;
  }
  EXPECT_TRUE(c.converged());
  EXPECT_GT(added, 100u);
  EXPECT_LE(c.noise(), 0.005);
}

TEST(Statistics, MedianIntervalCoversTheMedian) {
  std::vector<double> samples;
  for (int i = 1; i <= 100; ++i) samples.push_back(i);
  const auto s = summarize(samples);
  EXPECT_LT(s.median_ci95_lo, s.median);
  EXPECT_GT(s.median_ci95_hi, s.median);
  EXPECT_DOUBLE_EQ(s.median_ci95_lo, 40);  // ranks 50 -+ 9.8 -> 40 and 60
  EXPECT_DOUBLE_EQ(s.median_ci95_hi, 60);
  const std::vector<double> few{3, 1, 2};
  const auto t = summarize(few);
  EXPECT_DOUBLE_EQ(t.median_ci95_lo, 1);
  EXPECT_DOUBLE_EQ(t.median_ci95_hi, 3);
}

// Short kernels with a cold L2 spread a few percent for ever: the noise never meets 0.5%, but
// the median is known to a fraction of that after a few thousand samples, and sampling stops.
TEST(Stdrel, APreciseMedianEndsSamplingWhateverTheSpread) {
  stdrel_criterion c({10, 0.25, 0.005, 5.0, 0.0025});
  std::mt19937 rng(11);
  std::normal_distribution<double> spread(10.0, 0.3);  // 10 us, noise 3%
  std::size_t added = 0;
  while (!c.finished()) {
    c.add(spread(rng), 100.0);  // 100 us of host time per sample: 0.25 s is 2'500 samples
    ++added;
  }
  EXPECT_TRUE(c.converged()) << c.state();
  EXPECT_GT(c.noise(), 0.02);
  EXPECT_LE(c.median_ci(), 0.0025);
  EXPECT_EQ(added, 2'500u);  // the minimum time binds: the interval was tight long before
  EXPECT_NE(c.state().find("median's 95% interval"), std::string::npos) << c.state();
}

TEST(Stdrel, AWideMedianIntervalKeepsSamplingUntilTheBudget) {
  // Bimodal samples (two clocks): the median sits between the modes and its interval stays wide.
  stdrel_criterion c({10, 0.25, 0.005, 1.0, 0.0025});
  std::size_t added = 0;
  while (!c.finished()) {
    c.add(added % 2 ? 10.0 : 12.0, 100.0);
    ++added;
  }
  EXPECT_FALSE(c.converged()) << c.state();
  EXPECT_GT(c.median_ci(), 0.0025);
  EXPECT_EQ(added, 10'000u);
  EXPECT_NE(c.state().find("budget of 1.00 s spent"), std::string::npos) << c.state();
}

TEST(Stdrel, TheMedianIntervalIsTheSummarysInterval) {
  stdrel_criterion c({10, 0.0, 0.005, 5.0});
  std::mt19937 rng(5);
  std::exponential_distribution<double> tail(1.0);
  for (int i = 0; i < 1001; ++i) c.add(20.0 + tail(rng));
  const auto s = summarize(c.samples());
  EXPECT_DOUBLE_EQ(c.median_ci(), (s.median_ci95_hi - s.median_ci95_lo) / 2 / s.median);
}

}  // namespace
}  // namespace pallasbench
