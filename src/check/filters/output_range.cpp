#include "pallasbench/check/filters/output_range.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include <fmt/format.h>

namespace pallasbench {

filter_description output_range_filter::do_describe() const {
  return {"output_range",
          "the output's spread (max - min of its finite elements) over the reference's, the lowest over "
          "the seeds whose reference varies; more non-finite elements than the reference fail it",
          pass_direction::at_least, thresholds::min_range_ratio, ""};
}

filter_result output_range_filter::do_evaluate(const filter_inputs& in) const {
  if (in.seeds.empty()) throw missing_evidence("no outputs");
  filter_result r{true, std::numeric_limits<double>::infinity(), thresholds::min_range_ratio, ""};
  const auto& sum = in.summary();
  for (std::size_t s = 0; s < in.seeds.size(); ++s) {
    const auto &out = sum.outputs[s], &ref = sum.references[s];
    if (out.nonfinite > ref.nonfinite) {
      r.passed = false;
      r.value = 0;
      r.reason = fmt::format("seed {}: {} non-finite output elements", s, out.nonfinite);
      return r;
    }
    if (ref.range() <= 0) continue;
    r.value = std::min(r.value, out.range() / ref.range());
  }
  if (!std::isfinite(r.value)) {
    r.value = 1;
    r.reason = "the reference is constant: no spread to demand";
    return r;
  }
  r.passed = r.value >= r.threshold;
  r.reason = r.passed ? "output spread matches the reference's"
                      : fmt::format("output range is {:.3g} of the reference's", r.value);
  return r;
}

}  // namespace pallasbench
