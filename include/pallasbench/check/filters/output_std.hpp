// output_std: the output's standard deviation against the reference's, over each seed's elements
// and, per element, across seeds; an output that ignores the seed (the same for every input) fails.
#pragma once

#include "pallasbench/check/filters/filter.hpp"

namespace pallasbench {

namespace thresholds {
// As min_range_ratio: an honest kernel's ratio is ~1, a near-constant output's ~0.
inline constexpr double min_std_ratio = 0.5;
}  // namespace thresholds

class output_std_filter final : public robustness_filter {
private:
  [[nodiscard]] filter_description do_describe() const override;
  [[nodiscard]] filter_result do_evaluate(const filter_inputs& in) const override;
};

}  // namespace pallasbench
