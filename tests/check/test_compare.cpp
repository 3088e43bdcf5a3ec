#include "pallasbench/check/compare.hpp"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "npy_writer.hpp"

namespace pallasbench {
namespace {

using testing::temp_dir;
using testing::write_f32;

constexpr tolerance k_elementwise{1e-5, 1e-5, 1e-5};

struct pair_fixture {
  temp_dir dir;
  npy_array out, ref;
  pair_fixture(const std::vector<float>& o, const std::vector<float>& r, std::vector<std::int64_t> shape = {})
      : out(npy_array::open(
            write_f32(dir, "out.npy", shape.empty() ? std::vector<std::int64_t>{(std::int64_t)o.size()} : shape, o))),
        ref(npy_array::open(write_f32(dir, "ref.npy", {(std::int64_t)r.size()}, r))) {}
};

TEST(Compare, EqualArraysPassExactly) {
  pair_fixture f({1, 2, 3}, {1, 2, 3});
  const auto c = compare(f.out, f.ref, tolerance{});
  EXPECT_TRUE(c.passed) << c.reason;
  EXPECT_EQ(c.max_abs_error, 0.0);
}

TEST(Compare, WithinToleranceReportsErrors) {
  pair_fixture f({1.000001f, 2, 3}, {1, 2, 3});
  const auto c = compare(f.out, f.ref, k_elementwise);
  EXPECT_TRUE(c.passed) << c.reason;
  EXPECT_NEAR(c.max_abs_error, 1e-6, 1e-7);
  EXPECT_NEAR(c.max_rel_error, 1e-6, 1e-7);
}

TEST(Compare, OutsideElementwiseToleranceFails) {
  pair_fixture f({1.001f, 2, 3}, {1, 2, 3});
  const auto c = compare(f.out, f.ref, k_elementwise);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.mismatches, 1u);
  EXPECT_NE(c.reason.find("1 of 3 elements"), std::string::npos) << c.reason;
}

TEST(Compare, RelativeNormBoundApplies) {
  // Every element inside a generous elementwise bound, but the error norm is large.
  pair_fixture f({1.01f, 2.02f, 3.03f}, {1, 2, 3});
  const auto c = compare(f.out, f.ref, tolerance{1.0, 0.0, 1e-3});
  EXPECT_FALSE(c.passed);
  EXPECT_NE(c.reason.find("relative norm"), std::string::npos) << c.reason;
  EXPECT_NEAR(c.rel_norm_error, 0.01, 1e-4);
}

TEST(Compare, NanWhereReferenceFiniteFails) {
  pair_fixture f({1, std::nanf(""), 3}, {1, 2, 3});
  const auto c = compare(f.out, f.ref, tolerance{1e9, 1e9, 1e9});
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.unexpected_nonfinite, 1u);
  EXPECT_NE(c.reason.find("NaN/Inf"), std::string::npos);
}

TEST(Compare, InfWhereReferenceFiniteFails) {
  pair_fixture f({std::numeric_limits<float>::infinity()}, {1});
  EXPECT_EQ(compare(f.out, f.ref, tolerance{1e9, 1e9, 1e9}).unexpected_nonfinite, 1u);
}

TEST(Compare, NanReferenceWantsNan) {
  pair_fixture same({std::nanf(""), 1}, {std::nanf(""), 1});
  EXPECT_TRUE(compare(same.out, same.ref, k_elementwise).passed);
  pair_fixture other({0, 1}, {std::nanf(""), 1});
  EXPECT_FALSE(compare(other.out, other.ref, k_elementwise).passed);
}

TEST(Compare, ShapeMismatchFails) {
  pair_fixture f({1, 2, 3, 4}, {1, 2, 3, 4}, {2, 2});
  const auto c = compare(f.out, f.ref, k_elementwise);
  EXPECT_FALSE(c.passed);
  EXPECT_NE(c.reason.find("shape (2, 2) differs from the reference's (4)"), std::string::npos) << c.reason;
}

TEST(Compare, DtypeMismatchFails) {
  temp_dir dir;
  testing::write_file(dir / "o.npy", testing::npy_bytes("<f8", {2}, testing::raw(std::vector<double>{1, 2})));
  const auto out = npy_array::open(dir / "o.npy");
  const auto ref = npy_array::open(write_f32(dir, "r.npy", {2}, {1, 2}));
  const auto c = compare(out, ref, k_elementwise);
  EXPECT_FALSE(c.passed);
  EXPECT_NE(c.reason.find("dtype float64 differs from the reference's float32"), std::string::npos);
}

TEST(Compare, IntegersCompareExactly) {
  temp_dir dir;
  using testing::npy_bytes;
  using testing::raw;
  testing::write_file(dir / "o.npy", npy_bytes("<i4", {3}, raw(std::vector<std::int32_t>{5, 6, 8})));
  testing::write_file(dir / "r.npy", npy_bytes("<i4", {3}, raw(std::vector<std::int32_t>{5, 6, 7})));
  const auto c = compare(npy_array::open(dir / "o.npy"), npy_array::open(dir / "r.npy"), tolerance{});
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.mismatches, 1u);
  EXPECT_EQ(c.max_abs_error, 1.0);
}

TEST(Compare, NearZeroReferenceDoesNotInflateRelativeError) {
  pair_fixture f({1e-9f, 1.0f}, {0.0f, 1.0f});
  const auto c = compare(f.out, f.ref, k_elementwise);
  EXPECT_TRUE(c.passed);
  EXPECT_EQ(c.max_rel_error, 0.0);
}

TEST(Compare, BitwiseEqualDistinguishesSignedZero) {
  pair_fixture f({0.0f}, {-0.0f});
  EXPECT_FALSE(bitwise_equal(f.out, f.ref));
  EXPECT_TRUE(bitwise_equal(f.out, f.out));
}

}  // namespace
}  // namespace pallasbench
