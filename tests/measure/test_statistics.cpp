#include "pallasbench/measure/statistics.hpp"

#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace pallasbench {
namespace {

TEST(Statistics, MatchesNumpyLinearQuantiles) {
  // numpy: np.percentile([7, 1, 3, 5, 9, 2], [25, 50, 75]) == [2.25, 4.0, 6.5]
  const std::vector<double> samples{7, 1, 3, 5, 9, 2};
  const auto s = summarize(samples);
  EXPECT_EQ(s.count, 6u);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 9);
  EXPECT_DOUBLE_EQ(s.q1, 2.25);
  EXPECT_DOUBLE_EQ(s.median, 4.0);
  EXPECT_DOUBLE_EQ(s.q3, 6.5);
  EXPECT_DOUBLE_EQ(s.iqr(), 4.25);
  EXPECT_NEAR(s.mean, 27.0 / 6, 1e-12);
  EXPECT_NEAR(s.stdev, 3.0822, 1e-4);  // sample stdev (ddof=1)
}

TEST(Statistics, SingleSample) {
  const std::vector<double> one{42};
  const auto s = summarize(one);
  EXPECT_DOUBLE_EQ(s.median, 42);
  EXPECT_DOUBLE_EQ(s.stdev, 0);
  EXPECT_DOUBLE_EQ(s.noise(), 0);
}

TEST(Statistics, EmptyThrows) { EXPECT_THROW((void)summarize(std::vector<double>{}), std::invalid_argument); }

}  // namespace
}  // namespace pallasbench
