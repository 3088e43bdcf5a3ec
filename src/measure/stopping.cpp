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

bool stdrel_criterion::converged() const {
  return m_samples.size() >= m_options.min_samples && m_total_us >= m_options.min_time_s * 1e6 &&
         noise() <= m_options.max_noise;
}

bool stdrel_criterion::finished() const { return converged() || m_total_us >= m_options.budget_s * 1e6; }

std::string stdrel_criterion::state() const {
  const std::string noise_text = std::isfinite(noise()) ? fmt::format("{:.2f}%", 100 * noise()) : "n/a";
  if (converged())
    return fmt::format("converged: {} samples, noise {} <= {:.2f}%", m_samples.size(), noise_text,
                       100 * m_options.max_noise);
  if (finished())
    return fmt::format("budget of {:.2f} s spent: {} samples, noise {} > {:.2f}%", m_options.budget_s, m_samples.size(),
                       noise_text, 100 * m_options.max_noise);
  return fmt::format("sampling: {} samples, noise {}", m_samples.size(), noise_text);
}

}  // namespace pallasbench
