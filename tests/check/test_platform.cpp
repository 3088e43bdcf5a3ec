#include "pallasbench/check/platform.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "npy_writer.hpp"

namespace pallasbench {
namespace {

using testing::temp_dir;
using testing::write_f32;

constexpr tolerance k_case_tolerance{1e-5, 1e-5, 1e-5};

// A candidate's and the platform's outputs, each against one reference.
struct case_fixture {
  temp_dir dir;
  npy_array reference;
  explicit case_fixture(const std::vector<float>& ref)
      : reference(npy_array::open(write_f32(dir, "ref.npy", {(std::int64_t)ref.size()}, ref))) {}
  comparison against(const char* name, const std::vector<float>& values, const tolerance& tol = k_case_tolerance) {
    return compare(npy_array::open(write_f32(dir, name, {(std::int64_t)values.size()}, values)), reference, tol);
  }
};

TEST(ToleranceRatio, IsTheErrorAsAMultipleOfTheBound) {
  case_fixture f({1000, 1, 0});
  // |d| = 0.02 at 1000: bound 1e-5 + 1e-2 = 0.01001, ratio ~2; the norm ratio is smaller.
  const auto c = f.against("out.npy", {1000.02f, 1, 0}, {1e-5, 1e-5, 1});
  EXPECT_NEAR(c.tolerance_ratio, 0.0200195 / 0.01001, 1e-3);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(f.against("same.npy", {1000, 1, 0}).tolerance_ratio, 0.0);
}

TEST(ToleranceRatio, CountsTheNormBound) {
  case_fixture f({1, 1, 1, 1});
  // Each element within 3e-5 + ... no: atol 1, so elementwise ratios are tiny; the norm decides.
  const auto c = f.against("out.npy", {1.1f, 1.1f, 1.1f, 1.1f}, {1, 0, 0.01});
  EXPECT_NEAR(c.tolerance_ratio, 10.0, 1e-3);
}

TEST(ToleranceRatio, IsInfiniteForNonFiniteOutputsAndZeroBounds) {
  case_fixture f({1, 2});
  EXPECT_TRUE(std::isinf(f.against("nan.npy", {std::nanf(""), 2}).tolerance_ratio));
  EXPECT_TRUE(std::isinf(f.against("exact.npy", {1.5f, 2}, tolerance{}).tolerance_ratio));
  EXPECT_EQ(f.against("exact_same.npy", {1, 2}, tolerance{}).tolerance_ratio, 0.0);
}

TEST(Platform, WithinToleranceNeedsNoPlatformUnlessBelowClass) {
  case_fixture f({1, 2, 3});
  const auto c = f.against("out.npy", {1, 2, 3.00001f});
  EXPECT_FALSE(needs_platform(c, false));
  EXPECT_TRUE(needs_platform(c, true));
  const auto judged = judged_by_tolerance(c);
  EXPECT_TRUE(judged.passed);
  EXPECT_EQ(judged.passed_by, "tolerance");
}

TEST(Platform, AMissWithinFourTimesThePlatformsErrorPasses) {
  case_fixture f({1000, 1, 2});
  const auto platform = f.against("xla.npy", {1000.02f, 1, 2});    // ~2x the tolerance
  const auto candidate = f.against("out.npy", {1000.06f, 1, 2});  // ~6x: within 4 x 2
  ASSERT_FALSE(candidate.passed);
  ASSERT_TRUE(needs_platform(candidate, false));
  const auto judged = judge_against_platform(candidate, platform, false);
  EXPECT_TRUE(judged.passed) << judged.reason;
  EXPECT_EQ(judged.passed_by, "platform");
  EXPECT_NEAR(*judged.platform_ratio, platform.tolerance_ratio, 1e-12);
  EXPECT_TRUE(judged.reason.empty());
}

TEST(Platform, AMissPastFourTimesThePlatformsErrorFailsNamingBoth) {
  case_fixture f({1000, 1, 2});
  const auto platform = f.against("xla.npy", {1000.02f, 1, 2});
  const auto candidate = f.against("out.npy", {1000.2f, 1, 2});  // ~20x
  const auto judged = judge_against_platform(candidate, platform, false);
  EXPECT_FALSE(judged.passed);
  EXPECT_NE(judged.reason.find("elements outside"), std::string::npos) << judged.reason;
  EXPECT_NE(judged.reason.find("not within the platform's bound"), std::string::npos) << judged.reason;
}

TEST(Platform, BelowClassIsJudgedByThePlatformAloneEvenWithinTolerance) {
  case_fixture f({1, 2, 3});
  const auto platform = f.against("xla.npy", {1, 2, 3});            // exact: the bound is 0
  const auto candidate = f.against("out.npy", {1, 2, 3.00001f});    // within the tolerance
  ASSERT_TRUE(candidate.passed);
  const auto judged = judge_against_platform(candidate, platform, true);
  EXPECT_FALSE(judged.passed);
  EXPECT_NE(judged.reason.find("below the task's precision class"), std::string::npos) << judged.reason;
  const auto exact = judge_against_platform(f.against("exact.npy", {1, 2, 3}), platform, true);
  EXPECT_TRUE(exact.passed) << exact.reason;
}

TEST(Platform, ANonFinitePlatformGivesNoLicence) {
  case_fixture f({1000, 1, 2});
  const auto platform = f.against("xla.npy", {std::numeric_limits<float>::infinity(), 1, 2});
  const auto candidate = f.against("out.npy", {1001, 1, 2});
  const auto judged = judge_against_platform(candidate, platform, false);
  EXPECT_FALSE(judged.passed);
  EXPECT_NE(judged.reason.find("only the tolerance counts"), std::string::npos) << judged.reason;
}

TEST(Platform, ANonFiniteCandidateNeedsNoPlatform) {
  case_fixture f({1, 2});
  EXPECT_FALSE(needs_platform(f.against("nan.npy", {std::nanf(""), 2}), false));
  EXPECT_FALSE(needs_platform(f.against("nan2.npy", {std::nanf(""), 2}), true));
}

}  // namespace
}  // namespace pallasbench
