#include "pallasbench/check/filters/output_range.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "filter_fixture.hpp"

namespace pallasbench {
namespace {

using testing::Filters;

TEST_F(Filters, RangeCatchesCollapsedOutput) {
  filter_inputs in;
  in.seeds = {{vec({0.5f, 0.5f, 0.5f, 0.51f}), vec({0, 1, 0.2f, 0.9f})}};
  const auto r = output_range_filter().evaluate(in);
  EXPECT_FALSE(r.passed);
  EXPECT_NEAR(r.value, 0.01, 1e-6);
  in.seeds = {{vec({0, 1, 0.2f, 0.9f}), vec({0, 1, 0.2f, 0.9f})}};
  EXPECT_TRUE(output_range_filter().evaluate(in).passed);
}

TEST_F(Filters, RangeAcceptsConstantReferenceAndRefusesNonFinite) {
  filter_inputs in;
  in.seeds = {{vec({2, 2}), vec({2, 2})}};
  const auto constant = output_range_filter().evaluate(in);
  EXPECT_TRUE(constant.passed);
  EXPECT_NE(constant.reason.find("constant"), std::string::npos);
  in.seeds = {{vec({std::nanf(""), 2}), vec({1, 2})}};
  EXPECT_FALSE(output_range_filter().evaluate(in).passed);
}

}  // namespace
}  // namespace pallasbench
