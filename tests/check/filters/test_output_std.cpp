#include "pallasbench/check/filters/output_std.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include "filter_fixture.hpp"

namespace pallasbench {
namespace {

using testing::Filters;
using testing::for_each_isa;
using testing::reference_moments;

TEST_F(Filters, StdCatchesOutputThatIgnoresTheSeed) {
  // Each seed's output has the right spread, but it is the same output for every seed.
  const auto* same = vec({0, 1, 2, 3});
  filter_inputs in;
  in.seeds = {{same, vec({0, 1, 2, 3})}, {same, vec({3, 2, 1, 0})}, {same, vec({1, 3, 0, 2})}};
  const auto r = output_std_filter().evaluate(in);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.reason.find("across seeds"), std::string::npos) << r.reason;
  in.seeds = {{vec({0, 1, 2, 3}), vec({0, 1, 2, 3})}, {vec({3, 2, 1, 0}), vec({3, 2, 1, 0})}};
  EXPECT_TRUE(output_std_filter().evaluate(in).passed);
}

TEST_F(Filters, StdAcrossSeedsMatchesDoubleReference) {
  // out_s = 0.7 ref_s + 0.3 ref_0: each seed's spread is 0.76-1 of the reference's, the spread
  // across seeds 0.7 of it.
  constexpr std::size_t seeds = 3, n = 5003;
  std::mt19937 rng(9);
  std::normal_distribution<float> normal;
  std::vector<std::vector<float>> outs(seeds, std::vector<float>(n)), refs(seeds, std::vector<float>(n));
  for (std::size_t s = 0; s < seeds; ++s)
    for (std::size_t i = 0; i < n; ++i) refs[s][i] = normal(rng);
  for (std::size_t s = 0; s < seeds; ++s)
    for (std::size_t i = 0; i < n; ++i) outs[s][i] = 0.7f * refs[s][i] + 0.3f * refs[0][i];
  refs[1][17] = std::nanf("");  // left out of the mean of stds (but counted in its denominator)
  auto mean_std = [&](const std::vector<std::vector<float>>& arrays) {
    double total = 0;
    for (std::size_t i = 0; i < n; ++i) {
      double sum = 0, sum_sq = 0;
      for (const auto& a : arrays) sum += a[i];
      for (const auto& a : arrays) sum_sq += (a[i] - sum / seeds) * (a[i] - sum / seeds);
      if (std::isfinite(sum_sq)) total += std::sqrt(sum_sq / (seeds - 1));
    }
    return total / n;
  };
  double want = mean_std(outs) / mean_std(refs);
  for (std::size_t s = 0; s < seeds; ++s)
    want = std::min(want, reference_moments(outs[s]).stdev() / reference_moments(refs[s]).stdev());
  ASSERT_NEAR(want, 0.7, 0.01);
  filter_inputs in;
  for (std::size_t s = 0; s < seeds; ++s) in.seeds.push_back({vec(outs[s]), vec(refs[s])});
  for_each_isa([&] {
    filter_inputs fresh;  // no profiles cached from the other pass
    fresh.seeds = in.seeds;
    const auto r = output_std_filter().evaluate(fresh);
    EXPECT_TRUE(r.passed);
    EXPECT_NEAR(r.value, want, 1e-6 * want);
  });
}

}  // namespace
}  // namespace pallasbench
