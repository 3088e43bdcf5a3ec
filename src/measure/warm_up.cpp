#include "pallasbench/measure/warm_up.hpp"

#include <algorithm>

namespace pallasbench {

void warm_up_rule::add(std::span<const double> call_us) {
  for (const double t : call_us) {
    if (m_settled) return;
    m_calls.push_back(t);
    const std::size_t n = m_calls.size();
    if (n >= m_minimum && t <= k_settled_ratio * std::min(m_calls[n - 3], m_calls[n - 2])) m_settled = true;
    if (n >= k_max_calls) m_settled = true;
  }
}

int warm_up_rule::next_calls() const {
  if (m_settled) return 0;
  // Below the minimum: the rest of it at once. Past it: a few at a time, each batch one round trip
  // (more calls than needed only warm further).
  const std::size_t wanted = m_calls.size() < m_minimum ? m_minimum - m_calls.size() : 3;
  return static_cast<int>(std::min(wanted, k_max_calls - m_calls.size()));
}

}  // namespace pallasbench
