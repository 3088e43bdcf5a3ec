#include "pallasbench/check/filters/output_std.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>

#include <fmt/format.h>

namespace pallasbench {

filter_description output_std_filter::do_describe() const {
  return {"output_std",
          "the output's standard deviation over the reference's, across each seed's elements and, per "
          "element, across seeds; the lowest",
          pass_direction::at_least, thresholds::min_std_ratio, ""};
}

filter_result output_std_filter::do_evaluate(const filter_inputs& in) const {
  if (in.seeds.empty()) throw missing_evidence("no outputs");
  filter_result r{true, std::numeric_limits<double>::infinity(), thresholds::min_std_ratio, ""};
  std::string worst = "across elements";
  const auto& sum = in.summary();
  for (std::size_t s = 0; s < in.seeds.size(); ++s)
    if (sum.references[s].stdev() > 0) r.value = std::min(r.value, sum.outputs[s].stdev() / sum.references[s].stdev());
  if (sum.across && sum.reference_std_across > 0) {
    const double ratio = sum.output_std_across / sum.reference_std_across;
    if (ratio < r.value) worst = "across seeds";
    r.value = std::min(r.value, ratio);
  }
  if (!std::isfinite(r.value)) {
    r.value = 1;
    r.reason = "the reference does not vary: no spread to demand";
    return r;
  }
  r.passed = r.value >= r.threshold;
  r.reason = r.passed ? "output std matches the reference's"
                      : fmt::format("output std {} is {:.3g} of the reference's", worst, r.value);
  return r;
}

}  // namespace pallasbench
