#include "pallasbench/check/filters/axes_variation.hpp"

#include <cstddef>

#include <fmt/format.h>

namespace pallasbench {

filter_description axes_variation_filter::do_describe() const {
  return {"axes_variation",
          "along every axis of seed 0's output, of the 1-D slices where the reference varies, the share "
          "where the output varies too; the lowest",
          pass_direction::at_least, thresholds::min_varying_slices, ""};
}

filter_result axes_variation_filter::do_evaluate(const filter_inputs& in) const {
  if (in.seeds.empty()) throw missing_evidence("no outputs");
  const output_pair& first = in.seeds.front();
  if (first.output->shape() != first.reference->shape())
    throw missing_evidence("output shape differs from the reference's");
  filter_result r{true, 1.0, thresholds::min_varying_slices, ""};
  const auto& axes = in.profile(first).axes;
  std::size_t checked = 0, skipped = 0;
  for (std::size_t axis = 0; axis < axes.size(); ++axis) {
    if (!axes[axis].checked) {
      ++skipped;
      continue;
    }
    if (axes[axis].reference_varies == 0) continue;  // the reference is constant along this axis
    ++checked;
    const double fraction =
        static_cast<double>(axes[axis].both_vary) / static_cast<double>(axes[axis].reference_varies);
    if (fraction < r.value) {
      r.value = fraction;
      r.reason = fmt::format("axis {}: the output varies in {:.1f}% of the slices where the reference varies", axis,
                             100 * fraction);
    }
  }
  r.passed = r.value >= r.threshold;
  if (r.passed)
    r.reason = checked ? fmt::format("output varies where the reference varies along all {} axes", checked)
                       : "the reference varies along no axis";
  if (skipped) r.reason += fmt::format(" ({} axis/axes with over 2^24 slices not checked)", skipped);
  return r;
}

}  // namespace pallasbench
