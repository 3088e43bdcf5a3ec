// Mann-Whitney U against values computed by hand from the definitions (rank sums, the exact count
// of orderings, the normal approximation's formula), not against another implementation.
#include "pallasbench/report/u_test.hpp"

#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace pallasbench {
namespace {

TEST(UTest, SeparatedSamplesOfThreeGiveTheExactTail) {
  // All 20 orderings of 3 x's among 3 y's are equally likely; only one puts every x below every
  // y (U = 0) and one above (U = 9): p = 2/20.
  const std::vector<double> x{1, 2, 3}, y{4, 5, 6};
  const auto r = mann_whitney_u(x, y);
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 0);
  EXPECT_NEAR(r.p_value, 0.1, 1e-12);
  EXPECT_NEAR(mann_whitney_u(y, x).p_value, 0.1, 1e-12);  // symmetric
  EXPECT_DOUBLE_EQ(mann_whitney_u(y, x).u, 9);
}

TEST(UTest, InterleavedSamplesOfThree) {
  // x ranks 1, 3, 5: U = 9 - 6 = 3; the counts of U = 0..9 are 1 1 2 3 3 3 3 2 1 1, so
  // P(U >= 6) = 7/20 and p = 0.7.
  const std::vector<double> x{1, 3, 5}, y{2, 4, 6};
  const auto r = mann_whitney_u(x, y);
  EXPECT_DOUBLE_EQ(r.u, 3);
  EXPECT_NEAR(r.p_value, 0.7, 1e-12);
}

TEST(UTest, FiveAgainstFiveSeparatedIsBelowOnePercent) {
  // 2 of the C(10, 5) = 252 orderings: p = 2/252 (what compare_gpu.sh's p < 0.01 needs at least).
  const std::vector<double> x{1, 2, 3, 4, 5}, y{6, 7, 8, 9, 10};
  const auto r = mann_whitney_u(x, y);
  EXPECT_TRUE(r.exact);
  EXPECT_NEAR(r.p_value, 2.0 / 252, 1e-12);
}

TEST(UTest, NineAgainstNineUsesTheNormalApproximation) {
  // n = m = 9 > 8: z = (81 - 40.5 - 0.5) / sqrt(81 * 19 / 12) = 3.53209, p = erfc(z / sqrt 2).
  std::vector<double> x, y;
  for (int i = 0; i < 9; ++i) {
    x.push_back(10 + i);
    y.push_back(100 + i);
  }
  const auto r = mann_whitney_u(x, y);
  EXPECT_FALSE(r.exact);
  EXPECT_NEAR(r.p_value, 0.0004122948, 1e-9);
}

TEST(UTest, TiesTakeMeanRanksAndTheTieCorrection) {
  // Sorted: 1x 2x 2x 2y 3x 3y 4y 5y; ranks of x: 1 + 3 + 3 + 5.5 = 12.5, U = 2.5, mirror 13.5.
  // Ties 2 (t = 3) and 3 (t = 2): sum t^3 - t = 30; variance 16/12 * (9 - 30/56) = 11.2857;
  // z = (13.5 - 8 - 0.5) / sqrt(11.2857) = 1.48835, p = 0.136658.
  const std::vector<double> x{1, 2, 2, 3}, y{2, 3, 4, 5};
  const auto r = mann_whitney_u(x, y);
  EXPECT_FALSE(r.exact);  // a tie: never the exact table
  EXPECT_DOUBLE_EQ(r.u, 2.5);
  EXPECT_NEAR(r.p_value, 0.1366582477, 1e-9);
}

TEST(UTest, IdenticalSamplesGiveOne) {
  const std::vector<double> x{2, 2, 2}, y{2, 2, 2};
  EXPECT_DOUBLE_EQ(mann_whitney_u(x, y).p_value, 1.0);
}

TEST(UTest, AnEmptySampleIsRefused) {
  const std::vector<double> x{1}, none;
  EXPECT_THROW((void)mann_whitney_u(x, none), std::invalid_argument);
}

}  // namespace
}  // namespace pallasbench
