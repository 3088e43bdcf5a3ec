#include "pallasbench/check/filters.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <random>

#include "npy_writer.hpp"

namespace pallasbench {
namespace {

using nlohmann::json;
using testing::temp_dir;

class Filters : public ::testing::Test {
protected:
  // Keeps every array it makes alive for the test.
  const npy_array* array(std::vector<std::int64_t> shape, const std::vector<float>& values) {
    const auto path = testing::write_f32(m_dir, "a" + std::to_string(m_arrays.size()) + ".npy", shape, values);
    m_arrays.push_back(std::make_unique<npy_array>(npy_array::open(path)));
    return m_arrays.back().get();
  }
  const npy_array* vec(const std::vector<float>& values) { return array({(std::int64_t)values.size()}, values); }

  temp_dir m_dir;
  std::vector<std::unique_ptr<npy_array>> m_arrays;
};

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

// The value passes exist per instruction set (filters.cpp): each check runs with the AVX2 passes
// (on a CPU that has them) and with the SSE2 baseline.
template <class Fn>
void for_each_isa(Fn&& check) {
  ::unsetenv("PALLASBENCH_NO_AVX2");
  {
    SCOPED_TRACE("native passes");
    check();
  }
  ::setenv("PALLASBENCH_NO_AVX2", "1", 1);
  {
    SCOPED_TRACE("baseline passes");
    check();
  }
  ::unsetenv("PALLASBENCH_NO_AVX2");
}

// The moments as defined: finite elements only, two passes in double.
value_moments reference_moments(const std::vector<float>& values) {
  value_moments m;
  double sum = 0;
  for (const float v : values) {
    if (!std::isfinite(v)) {
      ++m.nonfinite;
      continue;
    }
    if (m.count == 0) m.min = m.max = v;
    m.min = std::min<double>(m.min, v), m.max = std::max<double>(m.max, v);
    sum += v, ++m.count;
  }
  if (m.count == 0) return m;
  m.mean = sum / static_cast<double>(m.count);
  for (const float v : values)
    if (std::isfinite(v)) m.m2 += (v - m.mean) * (v - m.mean);
  return m;
}

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

TEST_F(Filters, ScalarOutputsHaveMomentsAndNoAxes) {
  filter_inputs in;
  in.seeds = {{array({}, {3}), array({}, {3})}};
  EXPECT_TRUE(output_range_filter().evaluate(in).passed);
  const auto axes = axes_variation_filter().evaluate(in);
  EXPECT_TRUE(axes.passed);
  EXPECT_NE(axes.reason.find("varies along no axis"), std::string::npos) << axes.reason;
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
          // A few float roundings per element (filters.hpp): under 6 * 2^-24 relative.
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

// The filter over an analysis (module_analysis's own rules are tested in test_module_analysis).
module_analysis clean_analysis() {
  module_analysis a;
  a.pallas_calls = 2;
  a.output_from_kernel = true;
  a.outside_share = 0.002;
  return a;
}

filter_inputs over(const module_analysis& a) {
  filter_inputs in;
  in.analysis = &a;
  in.source = "def kernel(x): ...";
  return in;
}

TEST(SourceAnalysis, CleanModulePassesAndSaysItsShare) {
  const auto a = clean_analysis();
  const auto r = source_analysis_filter().evaluate(over(a));
  EXPECT_TRUE(r.passed) << r.reason;
  EXPECT_DOUBLE_EQ(r.value, 0.002);
  EXPECT_NE(r.reason.find("2 Pallas kernel call(s); 0.20% of the work outside"), std::string::npos) << r.reason;
}

TEST(SourceAnalysis, ValueAndThresholdAreTheSharesOfTheAnalysis) {
  auto a = clean_analysis();
  a.outside_share = 0.5;
  a.problems = {"50.0% of the work outside the Pallas kernels"};
  const auto r = source_analysis_filter().evaluate(over(a));
  EXPECT_FALSE(r.passed);
  EXPECT_DOUBLE_EQ(r.value, 0.5);
  EXPECT_DOUBLE_EQ(r.threshold, thresholds::max_outside_work);
}

TEST(SourceAnalysis, EveryProblemOfTheAnalysisIsAReason) {
  auto a = clean_analysis();
  a.problems = {"no Pallas kernel result reaches the output", "kernel 'k': arith.truncf f32 -> bf16"};
  const auto r = source_analysis_filter().evaluate(over(a));
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.reason, "no Pallas kernel result reaches the output; kernel 'k': arith.truncf f32 -> bf16");
}

TEST(SourceAnalysis, WithoutAnAnalysisItFails) {
  filter_inputs in;
  const auto r = source_analysis_filter().evaluate(in);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.reason.find("no analysis"), std::string::npos) << r.reason;
}

TEST(SourceAnalysis, ImportingTheHarnessFails) {
  const auto a = clean_analysis();
  auto in = over(a);
  in.source = "import numpy as np\nfrom pallasbench import registry\n";
  EXPECT_FALSE(source_analysis_filter().evaluate(in).passed);
  in.source = "from pallasbench import executor\n";
  EXPECT_FALSE(source_analysis_filter().evaluate(in).passed);
  in.source = "import importlib.util\nspec = importlib.util.spec_from_file_location('r', 'tasks/level1/relu.py')\n";
  EXPECT_FALSE(source_analysis_filter().evaluate(in).passed);
  for (const char* registry : {"from pallasbench.task import registry\n", "import pallasbench.task.registry\n",
                               "from pallasbench.task.registry import load\n",
                               "from pallasbench.task import stress, registry\n"}) {
    in.source = registry;
    EXPECT_FALSE(source_analysis_filter().evaluate(in).passed) << registry;
  }
  // The task vocabulary and the shared kernel families are what candidates build on.
  in.source = "from pallasbench import task as tl\nfrom pallasbench.kernels import masked\n";
  EXPECT_TRUE(source_analysis_filter().evaluate(in).passed);
  in.source = "from pallasbench.task import stress\n";
  EXPECT_TRUE(source_analysis_filter().evaluate(in).passed);
}

TEST(SourceAnalysis, TaskFileLoadedByTheCandidateFails) {
  const auto a = clean_analysis();
  auto in = over(a);
  in.task_modules_loaded = {"tasks/level1/layernorm.py"};
  const auto r = source_analysis_filter().evaluate(in);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.reason.find("tasks/level1/layernorm.py"), std::string::npos) << r.reason;
}

TEST(RunFilters, MissingEvidenceFailsEveryFilterWithReason) {
  bool all = true;
  const auto out = run_filters(default_filters(), filter_inputs{}, all);
  EXPECT_FALSE(all);
  ASSERT_EQ(out.size(), 5u);
  for (const auto& [name, result] : out.items()) {
    EXPECT_FALSE(result["passed"].get<bool>()) << name;
    EXPECT_NE(result["reason"].get<std::string>().find("cannot run"), std::string::npos) << name;
  }
}

}  // namespace
}  // namespace pallasbench
