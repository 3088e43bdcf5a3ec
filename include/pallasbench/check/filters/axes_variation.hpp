// axes_variation: along every axis of seed 0's output, the 1-D slices where the reference varies
// beyond rounding must vary in the output too. Slices constant in the reference do not count, so
// legitimately sparse outputs (one-hot, counts) pass.
#pragma once

#include "pallasbench/check/filters/filter.hpp"

namespace pallasbench {

namespace thresholds {
// A degenerate output fails nearly all of the slices that vary in the reference, an honest one none.
inline constexpr double min_varying_slices = 0.9;
}  // namespace thresholds

class axes_variation_filter final : public robustness_filter {
private:
  [[nodiscard]] filter_description do_describe() const override;
  [[nodiscard]] filter_result do_evaluate(const filter_inputs& in) const override;
};

}  // namespace pallasbench
