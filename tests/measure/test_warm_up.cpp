#include "pallasbench/measure/warm_up.hpp"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

namespace pallasbench {
namespace {

TEST(WarmUp, AsksForTheMinimumFirst) {
  warm_up_rule rule(3);
  EXPECT_EQ(rule.next_calls(), 3);
  rule.add(std::vector<double>{900});
  EXPECT_FALSE(rule.settled());
  EXPECT_EQ(rule.next_calls(), 2);
}

TEST(WarmUp, SettlesWhenTheLastCallIsNoSlowerThanTheTwoBefore) {
  warm_up_rule rule(3);
  rule.add(std::vector<double>{900, 100, 110});  // 110 <= 1.25 * min(900, 100)
  EXPECT_TRUE(rule.settled());
  EXPECT_EQ(rule.next_calls(), 0);
}

TEST(WarmUp, KeepsWarmingAfterASlowCall) {
  warm_up_rule rule(3);
  rule.add(std::vector<double>{100, 100, 300});  // the third call is 3x slower: not settled
  EXPECT_FALSE(rule.settled());
  EXPECT_EQ(rule.next_calls(), 3);
  rule.add(std::vector<double>{120, 110, 100});  // settles at 120 <= 1.25 * 100; the rest only warm further
  EXPECT_TRUE(rule.settled());
  EXPECT_EQ(rule.calls(), 4u);
}

TEST(WarmUp, StopsAtTheCap) {
  warm_up_rule rule(3);
  std::vector<double> rising;
  for (int i = 0; i < 60; ++i) rising.push_back(std::ldexp(1.0, i));  // each call twice as slow
  rule.add(rising);
  EXPECT_TRUE(rule.settled());
  EXPECT_EQ(rule.calls(), warm_up_rule::k_max_calls);
}

TEST(WarmUp, NeverAsksPastTheCap) {
  warm_up_rule rule(48);
  std::vector<double> rising;
  for (int i = 0; i < 48; ++i) rising.push_back(std::ldexp(1.0, i));
  rule.add(rising);
  ASSERT_FALSE(rule.settled());
  EXPECT_EQ(rule.next_calls(), 2);
}

}  // namespace
}  // namespace pallasbench
