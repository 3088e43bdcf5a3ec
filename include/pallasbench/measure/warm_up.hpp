// When a function is warm enough to time: first-call allocation, autotuning and caches settle
// before any sample counts. The workers make exactly the untimed calls this rule asks for and
// report each one's host time (docs/protocol.md, "time").
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace pallasbench {

class warm_up_rule {
public:
  // Settled once at least max(minimum, 3) calls ran and the last of them was no slower than
  // k_settled_ratio times the faster of the two before it; or after k_max_calls calls.
  explicit warm_up_rule(int minimum) : m_minimum(minimum < 3 ? 3 : static_cast<std::size_t>(minimum)) {}

  static constexpr double k_settled_ratio = 1.25;
  static constexpr std::size_t k_max_calls = 50;

  // The host times of further warm-up calls, in the order they ran.
  void add(std::span<const double> call_us);
  [[nodiscard]] bool settled() const { return m_settled; }
  // How many untimed calls to ask for next: 0 once settled.
  [[nodiscard]] int next_calls() const;
  [[nodiscard]] std::size_t calls() const { return m_calls.size(); }

private:
  std::size_t m_minimum;
  std::vector<double> m_calls;
  bool m_settled = false;
};

}  // namespace pallasbench
