// src/check/detail/mismatch.cpp through compare(): a failed comparison's worst elements and the
// hint the data supports (transposed, shifted, scaled, along the wrong axis, NaN, zeros).
#include "pallasbench/check/compare.hpp"

#include <cmath>
#include <functional>

#include <gtest/gtest.h>

#include "npy_writer.hpp"

namespace pallasbench {
namespace {

using testing::temp_dir;
using testing::write_f32;

constexpr tolerance k_tol{1e-5, 1e-5, 1e-5};

// A rows x cols reference of distinct values, and an output made from it by `make(r, c)`.
struct matrix_pair {
  temp_dir dir;
  npy_array out, ref;
  matrix_pair(std::int64_t rows, std::int64_t cols, const std::function<float(std::int64_t, std::int64_t)>& value,
              const std::function<float(std::int64_t, std::int64_t)>& make, std::vector<std::int64_t> out_shape = {})
      : out(npy_array::open(
            write_f32(dir, "out.npy", out_shape.empty() ? std::vector{rows, cols} : out_shape,
                      fill(out_shape.empty() ? rows : out_shape[0], out_shape.empty() ? cols : out_shape[1], make)))),
        ref(npy_array::open(write_f32(dir, "ref.npy", {rows, cols}, fill(rows, cols, value)))) {}
  static std::vector<float> fill(std::int64_t rows, std::int64_t cols,
                                 const std::function<float(std::int64_t, std::int64_t)>& f) {
    std::vector<float> v;
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < cols; ++c) v.push_back(f(r, c));
    return v;
  }
};

float distinct(std::int64_t r, std::int64_t c) { return std::sin(static_cast<float>(r * 7 + c * 3 + 1)); }

TEST(Mismatch, TheWorstElementsComeLargestFirstWithTheirIndex) {
  matrix_pair f(4, 5, distinct, [](std::int64_t r, std::int64_t c) {
    return distinct(r, c) + (r == 2 && c == 3 ? 5.0f : r == 1 && c == 0 ? 2.0f : 0.0f);
  });
  const auto c = compare(f.out, f.ref, k_tol);
  ASSERT_FALSE(c.passed);
  ASSERT_EQ(c.worst.size(), 2u);  // only the elements that differ
  EXPECT_EQ(c.worst[0].index, (std::vector<std::int64_t>{2, 3}));
  EXPECT_NEAR(c.worst[0].error, 5.0, 1e-5);
  EXPECT_NEAR(c.worst[0].reference, distinct(2, 3), 1e-6);
  EXPECT_NEAR(c.worst[0].candidate, distinct(2, 3) + 5.0f, 1e-5);
  EXPECT_EQ(c.worst[1].index, (std::vector<std::int64_t>{1, 0}));
  EXPECT_EQ(c.hint, "");  // two stray elements: no pattern
}

TEST(Mismatch, AtMostEightWorstElements) {
  matrix_pair f(6, 6, distinct, [](std::int64_t r, std::int64_t c) { return distinct(r, c) + 1.0f + r * 6 + c; });
  const auto c = compare(f.out, f.ref, k_tol);
  ASSERT_EQ(c.worst.size(), k_worst_elements);
  EXPECT_EQ(c.worst[0].index, (std::vector<std::int64_t>{5, 5}));
}

TEST(Mismatch, ATransposedResultIsNamed) {
  matrix_pair f(8, 8, distinct, [](std::int64_t r, std::int64_t c) { return distinct(c, r); });
  EXPECT_NE(compare(f.out, f.ref, k_tol).hint.find("axes 0 and 1 swapped: a transposed result"), std::string::npos);
  matrix_pair g(3, 5, distinct, [](std::int64_t r, std::int64_t c) { return distinct(c, r); }, {5, 3});
  const auto c = compare(g.out, g.ref, k_tol);
  EXPECT_NE(c.reason.find("shape (5, 3) differs"), std::string::npos) << c.reason;
  EXPECT_NE(c.hint.find("axes 0 and 1 swapped"), std::string::npos) << c.hint;
}

TEST(Mismatch, AnOffByOneShiftIsNamedWithItsAxis) {
  matrix_pair f(16, 16, distinct,
                [](std::int64_t r, std::int64_t c) { return c + 1 < 16 ? distinct(r, c + 1) : 0.0f; });
  EXPECT_NE(compare(f.out, f.ref, k_tol).hint.find("shifted by one along axis 1: out[i] holds ref[i+1]"),
            std::string::npos);
  matrix_pair g(16, 16, distinct, [](std::int64_t r, std::int64_t c) { return r > 0 ? distinct(r - 1, c) : 0.0f; });
  EXPECT_NE(compare(g.out, g.ref, k_tol).hint.find("along axis 0: out[i] holds ref[i-1]"), std::string::npos);
}

TEST(Mismatch, AConstantFactorIsNamed) {
  matrix_pair f(4, 8, distinct, [](std::int64_t r, std::int64_t c) { return 0.125f * distinct(r, c); });
  EXPECT_NE(compare(f.out, f.ref, k_tol).hint.find("the reference times 0.125: a constant factor"), std::string::npos);
}

// A softmax normalised over axis 0 where the reference normalises over axis 1.
float softmax(std::int64_t r, std::int64_t c, bool over_rows) {
  float total = 0;
  for (std::int64_t k = 0; k < 6; ++k) total += std::exp(over_rows ? distinct(r, k) : distinct(k, c));
  return std::exp(distinct(r, c)) / total;
}

TEST(Mismatch, AWrongAxisIsNamed) {
  matrix_pair f(
      6, 6, [](std::int64_t r, std::int64_t c) { return softmax(r, c, true); },
      [](std::int64_t r, std::int64_t c) { return softmax(r, c, false); });
  const auto c = compare(f.out, f.ref, tolerance{1e-5, 1e-5, 1e-5});
  EXPECT_NE(c.hint.find("summed over axis 0 the output matches the reference summed over axis 1"), std::string::npos)
      << c.hint;
}

TEST(Mismatch, NanAndZerosAreNamed) {
  matrix_pair f(3, 3, distinct, [](std::int64_t r, std::int64_t c) { return r == 1 && c == 2 ? NAN : distinct(r, c); });
  const auto c = compare(f.out, f.ref, k_tol);
  EXPECT_EQ(c.hint, "the first NaN/Inf where the reference is finite is at index [1, 2]");
  EXPECT_TRUE(std::isinf(c.worst.at(0).error) && std::isnan(c.worst.at(0).candidate));
  matrix_pair z(3, 3, distinct, [](std::int64_t, std::int64_t) { return 0.0f; });
  EXPECT_EQ(compare(z.out, z.ref, k_tol).hint, "the output is all zeros: never written?");
}

TEST(Mismatch, APassingComparisonCarriesNone) {
  matrix_pair f(3, 3, distinct, distinct);
  const auto c = compare(f.out, f.ref, k_tol);
  EXPECT_TRUE(c.passed);
  EXPECT_TRUE(c.worst.empty() && c.hint.empty());
}

}  // namespace
}  // namespace pallasbench
