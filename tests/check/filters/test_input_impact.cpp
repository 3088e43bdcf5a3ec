#include "pallasbench/check/filters/input_impact.hpp"

#include <gtest/gtest.h>

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

TEST_F(Filters, InputImpactCatchesAnIgnoredInput) {
  const auto* out = vec({1, 2, 3});
  const auto* ref = vec({1, 2, 3});
  filter_inputs in;
  in.input_count = 2;
  in.perturbations = {{"x", {out, ref}, {vec({1.1f, 2.1f, 3.1f}), vec({1.1f, 2.1f, 3.1f})}},
                      {"bias", {out, ref}, {out, vec({1.01f, 2.01f, 3.01f})}}};  // output ignores bias
  const auto r = input_impact_filter().evaluate(in);
  EXPECT_FALSE(r.passed);
  EXPECT_NEAR(r.value, 1.0, 1e-3);
  EXPECT_NE(r.reason.find("input bias"), std::string::npos) << r.reason;
}

TEST_F(Filters, InputImpactNeedsEveryInput) {
  const auto* a = vec({1, 2});
  filter_inputs in;
  in.input_count = 2;
  in.perturbations = {{"x", {a, a}, {vec({2, 3}), vec({2, 3})}}};
  const auto r = input_impact_filter().evaluate(in);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.reason.find("cannot run: 1 of 2 inputs"), std::string::npos) << r.reason;
  in.input_count = 1;
  EXPECT_TRUE(input_impact_filter().evaluate(in).passed);
}

TEST_F(Filters, InputImpactMatchesDoubleReference) {
  constexpr std::size_t n = 10007;
  std::mt19937 rng(11);
  std::normal_distribution<float> normal;
  std::vector<float> out(n), ref(n), out_p(n), ref_p(n);
  for (std::size_t i = 0; i < n; ++i) {
    ref[i] = normal(rng), ref_p[i] = 1.05f * ref[i];
    out[i] = ref[i] + 1e-3f * normal(rng), out_p[i] = ref_p[i] + 2e-2f * normal(rng);
  }
  ref[5] = ref_p[5] = std::nanf("");  // reference changes that are not finite are left out
  ref_p[4000] = INFINITY;
  double change = 0, deviation = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double d_ref = double(ref_p[i]) - ref[i], d_out = double(out_p[i]) - out[i];
    if (!std::isfinite(d_ref)) continue;
    change += d_ref * d_ref, deviation += (d_out - d_ref) * (d_out - d_ref);
  }
  const double want = std::sqrt(deviation / change);
  filter_inputs in;
  in.input_count = 1;
  in.perturbations = {{"x", {vec(out), vec(ref)}, {vec(out_p), vec(ref_p)}}};
  for_each_isa([&] {
    const auto r = input_impact_filter().evaluate(in);
    EXPECT_NEAR(r.value, want, 1e-9 * want);
    EXPECT_EQ(r.passed, want <= thresholds::max_impact_deviation);
  });
}

}  // namespace
}  // namespace pallasbench
