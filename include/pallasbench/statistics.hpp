// Summary statistics of timing samples.
#pragma once

#include <cstddef>
#include <span>

#include <nlohmann/json.hpp>

namespace pallasbench {

struct sample_summary {
  std::size_t count = 0;
  double min = 0, max = 0, mean = 0, stdev = 0;
  double median = 0, q1 = 0, q3 = 0;
  [[nodiscard]] double iqr() const { return q3 - q1; }
  // Relative noise, stdev / mean (nvbench's "stdrel").
  [[nodiscard]] double noise() const { return mean > 0 ? stdev / mean : 0; }
};

// Quantiles by linear interpolation between order statistics (numpy's default); sample stdev.
// Throws std::invalid_argument on an empty input.
[[nodiscard]] sample_summary summarize(std::span<const double> samples);

[[nodiscard]] double quantile_sorted(std::span<const double> sorted, double q);

}  // namespace pallasbench
