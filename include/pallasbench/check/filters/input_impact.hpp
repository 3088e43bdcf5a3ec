// input_impact: each input perturbed within its domain must change the output as it changes the
// reference; the value is the worst relative deviation of the output's change from the reference's.
#pragma once

#include "pallasbench/check/filters/filter.hpp"

namespace pallasbench {

namespace thresholds {
// Inputs are perturbed by ~5% (or 10% of discrete positions); the change TF32 rounding adds to
// the output's change stays under ~5% of the reference's change.
inline constexpr double max_impact_deviation = 0.25;
}  // namespace thresholds

class input_impact_filter final : public robustness_filter {
private:
  [[nodiscard]] filter_description do_describe() const override;
  [[nodiscard]] filter_result do_evaluate(const filter_inputs& in) const override;
};

}  // namespace pallasbench
