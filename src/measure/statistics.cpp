#include "pallasbench/measure/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <tuple>
#include <vector>

namespace pallasbench {

double quantile_sorted(std::span<const double> sorted, double q) {
  if (sorted.empty()) throw std::invalid_argument("quantile of no samples");
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const auto above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + fraction * (sorted[above] - sorted[below]);
}

std::pair<double, double> median_ci95_sorted(std::span<const double> sorted) {
  if (sorted.empty()) throw std::invalid_argument("interval of no samples");
  const double n = static_cast<double>(sorted.size());
  const double half_width = 0.98 * std::sqrt(n);  // 1.96 * sqrt(n) / 2
  const auto lo = static_cast<std::ptrdiff_t>(std::floor(n / 2 - half_width));
  const auto hi = static_cast<std::ptrdiff_t>(std::ceil(n / 2 + half_width));
  const auto last = static_cast<std::ptrdiff_t>(sorted.size()) - 1;
  return {sorted[static_cast<std::size_t>(std::clamp<std::ptrdiff_t>(lo - 1, 0, last))],
          sorted[static_cast<std::size_t>(std::clamp<std::ptrdiff_t>(hi - 1, 0, last))]};
}

sample_summary summarize(std::span<const double> samples) {
  if (samples.empty()) throw std::invalid_argument("summary of no samples");
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  sample_summary s;
  s.count = sorted.size();
  s.min = sorted.front();
  s.max = sorted.back();
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(s.count);
  double sq = 0;
  for (const double x : sorted) sq += (x - s.mean) * (x - s.mean);
  s.stdev = s.count > 1 ? std::sqrt(sq / static_cast<double>(s.count - 1)) : 0.0;
  s.q1 = quantile_sorted(sorted, 0.25);
  s.median = quantile_sorted(sorted, 0.5);
  s.q3 = quantile_sorted(sorted, 0.75);
  std::tie(s.median_ci95_lo, s.median_ci95_hi) = median_ci95_sorted(sorted);
  return s;
}

}  // namespace pallasbench
