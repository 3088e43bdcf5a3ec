// Summary statistics of timing samples.
#pragma once

#include <cstddef>
#include <span>
#include <utility>

#include <nlohmann/json.hpp>

namespace pallasbench {

struct sample_summary {
  std::size_t count = 0;
  double min = 0, max = 0, mean = 0, stdev = 0;
  double median = 0, q1 = 0, q3 = 0;
  double median_ci95_lo = 0, median_ci95_hi = 0;  // distribution-free 95% interval of the median
  [[nodiscard]] double iqr() const { return q3 - q1; }
  // Relative noise, stdev / mean (nvbench's "stdrel").
  [[nodiscard]] double noise() const { return mean > 0 ? stdev / mean : 0; }
};

// Quantiles by linear interpolation between order statistics (numpy's default); sample stdev.
// Throws std::invalid_argument on an empty input.
[[nodiscard]] sample_summary summarize(std::span<const double> samples);

[[nodiscard]] double quantile_sorted(std::span<const double> sorted, double q);

// 95% confidence interval of the median from order statistics (the binomial / sign-test
// interval, normal approximation): ranks n/2 -+ 0.98 sqrt(n), clamped to the sample.
[[nodiscard]] std::pair<double, double> median_ci95_sorted(std::span<const double> sorted);

}  // namespace pallasbench
