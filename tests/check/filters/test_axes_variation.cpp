#include "pallasbench/check/filters/axes_variation.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "filter_fixture.hpp"
#include "pallasbench/check/filters/output_range.hpp"

namespace pallasbench {
namespace {

using testing::Filters;

TEST_F(Filters, AxesVariationSparesSparseOutputs) {
  // one_hot: most columns are constant in the reference; only slices that vary there count.
  const std::vector<float> one_hot{1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0};
  filter_inputs in;
  in.seeds = {{array({3, 4}, one_hot), array({3, 4}, one_hot)}};
  EXPECT_TRUE(axes_variation_filter().evaluate(in).passed);
}

TEST_F(Filters, AxesVariationCatchesRowsFilledWithOneValue) {
  // Reference rows vary along axis 1; the output repeats each row's first value.
  filter_inputs in;
  in.seeds = {{array({2, 3}, {1, 1, 1, 5, 5, 5}), array({2, 3}, {1, 1.001f, 1.002f, 5, 5.004f, 5.001f})}};
  const auto r = axes_variation_filter().evaluate(in);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.reason.find("axis 1"), std::string::npos) << r.reason;
}

TEST_F(Filters, ScalarOutputsHaveMomentsAndNoAxes) {
  filter_inputs in;
  in.seeds = {{array({}, {3}), array({}, {3})}};
  EXPECT_TRUE(output_range_filter().evaluate(in).passed);
  const auto axes = axes_variation_filter().evaluate(in);
  EXPECT_TRUE(axes.passed);
  EXPECT_NE(axes.reason.find("varies along no axis"), std::string::npos) << axes.reason;
}

}  // namespace
}  // namespace pallasbench
