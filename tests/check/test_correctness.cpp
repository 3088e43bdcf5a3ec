#include "pallasbench/correctness.hpp"

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
}  // namespace pallasbench
