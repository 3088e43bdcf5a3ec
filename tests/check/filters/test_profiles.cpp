#include "pallasbench/check/filters/profiles.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "filter_fixture.hpp"
#include "pallasbench/check/filters/filter.hpp"

namespace pallasbench {
namespace {

using testing::Filters;
using testing::for_each_isa;
using testing::reference_moments;

TEST(ValueMoments, BlockedFloatSumsMatchDoubleReference) {
  std::mt19937 rng(3);
  std::normal_distribution<float> normal;
  std::uniform_real_distribution<float> uniform;
  const std::vector<std::function<float(std::size_t)>> kinds = {
      [&](std::size_t) { return normal(rng); },
      [&](std::size_t) { return 1000 + 0.01f * normal(rng); },  // mean 1e5 times the std
      [&](std::size_t) { return -3 + 1e-3f * normal(rng); },
      [&](std::size_t) { return 3e19f * normal(rng); },              // float squares overflow
      [&](std::size_t i) { return 1e-3f * static_cast<float>(i); },  // a trend: the mean moves
      [&](std::size_t) { return 7.0f; },
      [&](std::size_t) {
        const float u = uniform(rng);
        return u < 0.01f ? std::nanf("") : u < 0.015f ? (u < 0.0125f ? 1 : -1) * INFINITY : normal(rng);
      },
      [&](std::size_t i) { return i < 3000 ? std::nanf("") : 5 + 2 * normal(rng); },  // no mean for a while
  };
  for (std::size_t kind = 0; kind < kinds.size(); ++kind)
    for (const std::size_t n : {1, 5, 17, 2047, 2048, 2049, 6001, 70001}) {
      std::vector<float> values(n);
      for (std::size_t i = 0; i < n; ++i) values[i] = kinds[kind](i);
      const auto want = reference_moments(values);
      for_each_isa([&] {
        SCOPED_TRACE(::testing::Message() << "kind " << kind << ", " << n << " elements");
        const auto got = moments_of(values);
        ASSERT_EQ(got.count, want.count);
        EXPECT_EQ(got.nonfinite, want.nonfinite);
        if (want.count == 0) return;
        EXPECT_EQ(got.min, want.min);
        EXPECT_EQ(got.max, want.max);
        EXPECT_NEAR(got.mean, want.mean, 1e-5 * want.stdev() + 1e-7 * std::fabs(want.mean));
        EXPECT_NEAR(got.stdev(), want.stdev(), 1e-4 * want.stdev());
      });
    }
}

// Along every axis, the slices as defined: the elements differing only in that coordinate. Rows
// (the last axis) use their finite elements; the other axes take elements in order, a lower or
// higher one replacing the extreme (so a NaN first element stays, later NaNs are passed over).
std::vector<axis_variation> reference_axes(const std::vector<std::int64_t>& shape, const std::vector<float>& out,
                                           const std::vector<float>& ref) {
  std::vector<axis_variation> axes(shape.size());
  for (std::size_t a = 0; a < shape.size(); ++a) {
    std::size_t outer = 1, inner = 1;
    for (std::size_t d = 0; d < a; ++d) outer *= shape[d];
    for (std::size_t d = a + 1; d < shape.size(); ++d) inner *= shape[d];
    const auto extent = static_cast<std::size_t>(shape[a]);
    for (std::size_t o = 0; o < outer; ++o)
      for (std::size_t i = 0; i < inner; ++i) {
        double lo[2] = {}, hi[2] = {};
        bool seen[2] = {};
        for (std::size_t k = 0; k < extent; ++k)
          for (int side = 0; side < 2; ++side) {
            const float x = (side ? ref : out)[(o * extent + k) * inner + i];
            if (a + 1 == shape.size()) {
              if (!std::isfinite(x)) continue;
              lo[side] = seen[side] ? std::min<double>(lo[side], x) : x;
              hi[side] = seen[side] ? std::max<double>(hi[side], x) : x;
            } else if (!seen[side]) {
              lo[side] = hi[side] = x;
            } else {
              lo[side] = x < lo[side] ? x : lo[side], hi[side] = x > hi[side] ? x : hi[side];
            }
            seen[side] = true;
          }
        const double noise = 4 * std::numeric_limits<float>::epsilon() * std::max(std::fabs(lo[1]), std::fabs(hi[1]));
        if (!(hi[1] - lo[1] > noise)) continue;
        ++axes[a].reference_varies;
        if (hi[0] - lo[0] > 0) ++axes[a].both_vary;
      }
  }
  return axes;
}

TEST_F(Filters, ProfileCountsSlicesAsDefined) {
  // Short and long rows, leading axes kept in the pass and given passes of their own (over 2^15
  // slices per outer block), extents that are not multiples of 4.
  const std::vector<std::vector<std::int64_t>> shapes = {
      {9},          {2049},         {3, 5, 7},    {4, 50, 30},     {2, 3, 4100},      {6000, 3},
      {5, 1, 2048}, {3, 40000},     {2, 5, 9000}, {4, 3, 3, 4000}, {2, 2, 2, 2, 300}, {7, 2, 33000},
      {5, 33000},   {10, 2, 17000}, {6, 20000}};
  std::mt19937 rng(5);
  std::normal_distribution<float> normal;
  std::uniform_real_distribution<float> uniform;
  for (const auto& shape : shapes) {
    std::size_t n = 1;
    for (const auto d : shape) n *= d;
    // Coarse values: many slices are constant in the output, some in the reference.
    std::vector<float> out(n), ref(n);
    for (std::size_t i = 0; i < n; ++i) {
      ref[i] = std::floor(2 * normal(rng)) / 2;
      out[i] = uniform(rng) < 0.5f ? ref[i] : std::floor(ref[i] / 4);
      if (uniform(rng) < 0.002f) out[i] = std::nanf("");
      if (uniform(rng) < 0.001f) ref[i] = INFINITY;
    }
    const auto want = reference_axes(shape, out, ref);
    const auto* o = array(shape, out);
    const auto* r = array(shape, ref);
    for_each_isa([&] {
      SCOPED_TRACE(::testing::Message() << n << " elements, rank " << shape.size());
      const auto p = profile_pair(*o, *r);
      ASSERT_EQ(p.axes.size(), shape.size());
      for (std::size_t a = 0; a < shape.size(); ++a) {
        EXPECT_TRUE(p.axes[a].checked);
        EXPECT_EQ(p.axes[a].reference_varies, want[a].reference_varies) << "axis " << a;
        EXPECT_EQ(p.axes[a].both_vary, want[a].both_vary) << "axis " << a;
      }
      const auto mo = reference_moments(out), mr = reference_moments(ref);
      EXPECT_EQ(p.output.nonfinite, mo.nonfinite);
      EXPECT_EQ(p.reference.nonfinite, mr.nonfinite);
      EXPECT_EQ(p.output.range(), mo.range());
      EXPECT_NEAR(p.output.stdev(), mo.stdev(), 1e-4 * mo.stdev());
    });
  }
}

// The mean std across seeds as defined: per element, the mean and the sum of squares about it in
// double over k - 1; elements where some seed is not finite add 0.
double reference_std_across(const std::vector<std::vector<float>>& seeds) {
  const std::size_t k = seeds.size(), n = seeds.front().size();
  double total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double sum = 0, sum_sq = 0;
    for (const auto& a : seeds) sum += a[i];
    const double mean = sum / static_cast<double>(k);
    for (const auto& a : seeds) sum_sq += (a[i] - mean) * (a[i] - mean);
    if (std::isfinite(sum_sq)) total += std::sqrt(sum_sq / static_cast<double>(k - 1));
  }
  return n ? total / static_cast<double>(n) : 0;
}

TEST(StdAcross, FloatPairSumsMatchDoubleReference) {
  std::mt19937 rng(13);
  std::normal_distribution<float> normal;
  std::uniform_real_distribution<float> uniform;
  // Value of seed s at element i.
  const std::vector<std::function<float(std::size_t, std::size_t)>> kinds = {
      [&](std::size_t, std::size_t) { return normal(rng); },
      [&](std::size_t, std::size_t) { return 1000 + 0.01f * normal(rng); },           // mean 1e5 times the spread
      [&](std::size_t, std::size_t) { return -3e5f + 0.5f * normal(rng); },           // a few ulps apart
      [&](std::size_t, std::size_t i) { return 0.1f * static_cast<float>(i % 97); },  // the same in every seed
      [&](std::size_t s, std::size_t i) {                                             // the same except in some blocks
        return static_cast<float>(i % 5) + ((i / 2048) % 3 == 1 ? 0.001f * static_cast<float>(s) : 0.0f);
      },
      [&](std::size_t s, std::size_t i) {  // mostly the same, the rest differing by float spacing (ulps)
        return (i % 7 == 0) ? std::nextafter(1.5f, 2.0f * static_cast<float>(s)) : 1.5f;
      },
      [&](std::size_t, std::size_t) { return 3e19f * normal(rng); },                // float squares overflow
      [&](std::size_t, std::size_t) { return 3e38f * (uniform(rng) - 0.5f) * 2; },  // differences overflow
      [&](std::size_t, std::size_t) { return 1e-20f * normal(rng); },               // squares underflow
      [&](std::size_t, std::size_t) { return 1e-39f * normal(rng); },               // subnormal values
      [&](std::size_t, std::size_t i) {  // tiny spread in part of each block, the rest normal
        return i % 2 ? 1 + normal(rng) : 1e-25f * normal(rng);
      },
      [&](std::size_t, std::size_t) {
        const float u = uniform(rng);
        return u < 0.01f ? std::nanf("") : u < 0.015f ? (u < 0.0125f ? 1 : -1) * INFINITY : normal(rng);
      },
      [&](std::size_t s, std::size_t i) { return s == 1 && i == 3000 ? INFINITY : normal(rng); },
  };
  for (std::size_t kind = 0; kind < kinds.size(); ++kind)
    for (const std::size_t k : {2, 3, 4, 5})
      for (const std::size_t n : {1, 5, 17, 2047, 2048, 2049, 6001}) {
        std::vector<std::vector<float>> seeds(k, std::vector<float>(n));
        for (std::size_t i = 0; i < n; ++i)
          for (std::size_t s = 0; s < k; ++s) seeds[s][i] = kinds[kind](s, i);
        std::vector<const float*> data;
        for (const auto& a : seeds) data.push_back(a.data());
        const double want = reference_std_across(seeds);
        for_each_isa([&] {
          SCOPED_TRACE(::testing::Message() << "kind " << kind << ", " << k << " seeds, " << n << " elements");
          const double got = mean_std_across(data, n);
          // A few float roundings per element (profiles.hpp): under 6 * 2^-24 relative.
          EXPECT_NEAR(got, want, 4e-7 * want);
        });
      }
}

TEST_F(Filters, SeedSummaryMatchesDoubleReference) {
  // Seed 0's moments come from its profile, the other seeds' from the passes across seeds.
  constexpr std::size_t seeds = 3, rows = 3, cols = 2500;
  std::mt19937 rng(17);
  std::normal_distribution<float> normal;
  std::uniform_real_distribution<float> uniform;
  const std::vector<std::function<float(std::size_t, std::size_t)>> kinds = {
      [&](std::size_t, std::size_t) { return normal(rng); },
      [&](std::size_t, std::size_t) { return 1000 + 0.01f * normal(rng); },  // mean 1e5 times the std
      [&](std::size_t, std::size_t) {
        const float u = uniform(rng);
        return u < 0.01f ? std::nanf("") : u < 0.015f ? (u < 0.0125f ? 1 : -1) * INFINITY : normal(rng);
      },
      [&](std::size_t s, std::size_t i) { return s == 1 && i < 3000 ? std::nanf("") : 5 + 2 * normal(rng); },
      [&](std::size_t, std::size_t i) { return 0.5f * static_cast<float>(i % 3); },  // the same in every seed
  };
  for (std::size_t kind = 0; kind < kinds.size(); ++kind) {
    std::vector<std::vector<float>> outs(seeds, std::vector<float>(rows * cols)), refs = outs;
    for (std::size_t s = 0; s < seeds; ++s)
      for (std::size_t i = 0; i < rows * cols; ++i) refs[s][i] = kinds[kind](s, i);
    for (std::size_t s = 0; s < seeds; ++s)
      for (std::size_t i = 0; i < rows * cols; ++i)
        outs[s][i] = uniform(rng) < 0.001f ? std::nanf("") : 0.8f * refs[s][i] + 0.2f * refs[(s + 1) % seeds][i];
    std::vector<output_pair> pairs;
    for (std::size_t s = 0; s < seeds; ++s)
      pairs.push_back({array({rows, cols}, outs[s]), array({rows, cols}, refs[s])});
    const double out_across = reference_std_across(outs), ref_across = reference_std_across(refs);
    for_each_isa([&] {
      SCOPED_TRACE(::testing::Message() << "kind " << kind);
      filter_inputs in;
      in.seeds = pairs;
      const auto& sum = in.summary();
      ASSERT_EQ(sum.outputs.size(), seeds);
      ASSERT_EQ(sum.references.size(), seeds);
      for (std::size_t s = 0; s < seeds; ++s)
        for (const auto& [got, values] : {std::pair{sum.outputs[s], outs[s]}, std::pair{sum.references[s], refs[s]}}) {
          SCOPED_TRACE(::testing::Message() << "seed " << s);
          const auto want = reference_moments(values);
          ASSERT_EQ(got.count, want.count);
          EXPECT_EQ(got.nonfinite, want.nonfinite);
          EXPECT_EQ(got.min, want.min);
          EXPECT_EQ(got.max, want.max);
          EXPECT_NEAR(got.mean, want.mean, 1e-5 * want.stdev() + 1e-7 * std::fabs(want.mean));
          EXPECT_NEAR(got.stdev(), want.stdev(), 1e-4 * want.stdev());
        }
      EXPECT_TRUE(sum.across);
      EXPECT_NEAR(sum.output_std_across, out_across, 4e-7 * out_across);
      EXPECT_NEAR(sum.reference_std_across, ref_across, 4e-7 * ref_across);
    });
  }
}

}  // namespace
}  // namespace pallasbench
