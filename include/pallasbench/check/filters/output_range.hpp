// output_range: the output's spread (max - min of its finite elements) against the reference's,
// per seed; a collapsed or near-constant output fails, as do non-finite elements the reference
// does not have.
#pragma once

#include "pallasbench/check/filters/filter.hpp"

namespace pallasbench {

namespace thresholds {
// A correct kernel reproduces the reference's spread almost exactly (ratio ~1); a collapsed or
// near-constant output has ratio ~0. Half leaves room for tolerance-sized differences on
// references with little spread.
inline constexpr double min_range_ratio = 0.5;
}  // namespace thresholds

class output_range_filter final : public robustness_filter {
private:
  [[nodiscard]] filter_description do_describe() const override;
  [[nodiscard]] filter_result do_evaluate(const filter_inputs& in) const override;
};

}  // namespace pallasbench
