#include "pallasbench/check/correctness.hpp"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "npy_writer.hpp"

namespace pallasbench {
namespace {

using testing::temp_dir;
using testing::write_f32;

struct runs {
  temp_dir dir;
  npy_array first, second, ref;
  runs(std::vector<float> a, std::vector<float> b, std::vector<float> r)
      : first(npy_array::open(write_f32(dir, "a.npy", {(std::int64_t)a.size()}, a))),
        second(npy_array::open(write_f32(dir, "b.npy", {(std::int64_t)b.size()}, b))),
        ref(npy_array::open(write_f32(dir, "r.npy", {(std::int64_t)r.size()}, r))) {}
};

constexpr tolerance k_tol{1e-4, 1e-4, 1e-4};

TEST(Correctness, DeterministicCorrectSeedPasses) {
  runs r({1, 2}, {1, 2}, {1, 2});
  const auto s = check_seed(0, r.first, r.second, r.ref, k_tol, false);
  EXPECT_TRUE(s.against_reference.passed);
  EXPECT_TRUE(s.deterministic);
}

TEST(Correctness, NonBitIdenticalRerunFailsUnlessOrderDependent) {
  runs r({1, 2}, {1, 2.00001f}, {1, 2});
  EXPECT_FALSE(check_seed(0, r.first, r.second, r.ref, k_tol, false).deterministic);
  EXPECT_TRUE(check_seed(0, r.first, r.second, r.ref, k_tol, true).deterministic);
}

TEST(Correctness, OrderDependentRerunOutsideToleranceFails) {
  runs r({1, 2}, {1, 2.5f}, {1, 2});
  EXPECT_FALSE(check_seed(0, r.first, r.second, r.ref, k_tol, true).deterministic);
}

TEST(Correctness, ReportNamesFirstFailingSeed) {
  runs good({1, 2}, {1, 2}, {1, 2});
  runs bad({1, 3}, {1, 3}, {1, 2});
  correctness_report report;
  report.add(check_seed(0, good.first, good.second, good.ref, k_tol, false));
  report.add(check_seed(7, bad.first, bad.second, bad.ref, k_tol, false));
  EXPECT_FALSE(report.passed());
  ASSERT_TRUE(report.first_failure().has_value());
  EXPECT_EQ(report.first_failure()->rfind("seed 7:", 0), 0u) << *report.first_failure();
  EXPECT_DOUBLE_EQ(report.max_abs_error(), 1.0);
  EXPECT_EQ(report.to_json()["seeds"].size(), 2u);
}

TEST(Correctness, EmptyReportDoesNotPass) { EXPECT_FALSE(correctness_report{}.passed()); }

}  // namespace
// ---- stress cases ----------------------------------------------------------------------------

TEST(StressTolerance, AtolScalesWithTheReferenceRmsAboveOne) {
  temp_dir dir;
  const auto big = npy_array::open(write_f32(dir, "big.npy", {2}, {3e6f, -4e6f}));
  double scale = 0;
  const auto tol = stress_tolerance(k_tol, big, scale);
  EXPECT_NEAR(scale, std::sqrt((9e12 + 16e12) / 2), 1);
  EXPECT_DOUBLE_EQ(tol.atol, k_tol.atol * scale);
  EXPECT_DOUBLE_EQ(tol.rtol, k_tol.rtol);
  EXPECT_DOUBLE_EQ(tol.rel_norm, k_tol.rel_norm);  // the norm bound never loosens
}

TEST(StressTolerance, SmallOrNonFiniteReferencesKeepTheTasksAtol) {
  temp_dir dir;
  const float inf = std::numeric_limits<float>::infinity();
  const auto small = npy_array::open(write_f32(dir, "small.npy", {3}, {1e-3f, inf, -2e-3f}));
  double scale = 0;
  EXPECT_DOUBLE_EQ(stress_tolerance(k_tol, small, scale).atol, k_tol.atol);
  EXPECT_DOUBLE_EQ(scale, 1.0);
}

TEST(CorrectnessReport, AFailedStressCaseFailsTheReportAndIsNamed) {
  runs r({1, 2}, {1, 2}, {1, 2});
  correctness_report report;
  report.add(check_seed(7, r.first, r.second, r.ref, k_tol, false));
  ASSERT_TRUE(report.passed());
  runs bad({1, 5}, {1, 5}, {1, 2});
  report.add(stress_outcome{"offset", 42, 1, compare(bad.first, bad.ref, k_tol)});
  report.set_stress_skipped({{"degenerate", "no integer input"}});
  EXPECT_FALSE(report.passed());
  const auto failure = report.first_failure().value_or("");
  EXPECT_NE(failure.find("stress case 'offset' (seed 42)"), std::string::npos) << failure;
  const auto j = report.to_json();
  ASSERT_EQ(j["stress"].size(), 1u);
  EXPECT_EQ(j["stress"][0]["case"], "offset");
  EXPECT_EQ(j["stress"][0]["passed"], false);
  EXPECT_EQ(j["stress"][0]["mismatches"], 1);
  EXPECT_EQ(j["stress_skipped"]["degenerate"], "no integer input");
  EXPECT_EQ(j["seeds"][0]["passed"], true);  // a stress failure is not the seed's
}

TEST(CorrectnessReport, SeedFailuresComeBeforeStressFailures) {
  runs bad({1, 5}, {1, 5}, {1, 2});
  correctness_report report;
  report.add(check_seed(3, bad.first, bad.second, bad.ref, k_tol, false));
  report.add(stress_outcome{"tiny", 9, 1, compare(bad.first, bad.ref, k_tol)});
  EXPECT_EQ(report.first_failure().value_or("").rfind("seed 3:", 0), 0u);
}

}  // namespace pallasbench
