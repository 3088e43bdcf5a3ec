#include "pallasbench/measure/stopping.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace pallasbench {

void stdrel_criterion::add(double sample_us, double cost_us) {
  m_samples.push_back(sample_us);
  m_total_us += cost_us;
  m_sum += sample_us;
  m_sum_sq += sample_us * sample_us;
}

double stdrel_criterion::noise() const {
  const auto n = static_cast<double>(m_samples.size());
  if (n < 2 || m_sum <= 0) return INFINITY;
  const double mean = m_sum / n;
  const double variance = std::max(0.0, (m_sum_sq - n * mean * mean) / (n - 1));
  return std::sqrt(variance) / mean;
}

double stdrel_criterion::median_ci() const {
  if (m_samples.size() < 2) return INFINITY;
  if (m_ci_samples != m_samples.size()) {
    std::vector<double> sorted(m_samples);
    std::sort(sorted.begin(), sorted.end());
    const double median = quantile_sorted(sorted, 0.5);
    const auto [lo, hi] = median_ci95_sorted(sorted);
    m_ci = median > 0 ? (hi - lo) / 2 / median : INFINITY;
    m_ci_samples = m_samples.size();
  }
  return m_ci;
}

bool stdrel_criterion::minimums_met() const {
  return m_samples.size() >= m_options.min_samples && m_total_us >= m_options.min_time_s * 1e6;
}

bool stdrel_criterion::converged() const {
  const bool median_known = m_options.max_median_ci > 0 && median_ci() <= m_options.max_median_ci;
  return minimums_met() && (noise() <= m_options.max_noise || median_known);
}

bool stdrel_criterion::finished() const { return converged() || m_total_us >= m_options.budget_s * 1e6; }

std::string stdrel_criterion::state() const {
  const std::string noise_text = std::isfinite(noise()) ? fmt::format("{:.2f}%", 100 * noise()) : "n/a";
  const std::string ci_text = std::isfinite(median_ci()) ? fmt::format("{:.3f}%", 100 * median_ci()) : "n/a";
  if (converged() && noise() <= m_options.max_noise)
    return fmt::format("converged: {} samples, noise {} <= {:.2f}%", m_samples.size(), noise_text,
                       100 * m_options.max_noise);
  if (converged())
    return fmt::format("converged: {} samples, median's 95% interval +-{} <= {:.3f}% (noise {})", m_samples.size(),
                       ci_text, 100 * m_options.max_median_ci, noise_text);
  if (finished())
    return fmt::format("budget of {:.2f} s spent: {} samples, noise {} > {:.2f}%, median's 95% interval +-{} > {:.3f}%",
                       m_options.budget_s, m_samples.size(), noise_text, 100 * m_options.max_noise, ci_text,
                       100 * m_options.max_median_ci);
  return fmt::format("sampling: {} samples, noise {}", m_samples.size(), noise_text);
}

}  // namespace pallasbench
