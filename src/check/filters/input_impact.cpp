#include "pallasbench/check/filters/input_impact.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../detail/impact.hpp"

namespace pallasbench {

filter_description input_impact_filter::do_describe() const {
  return {"input_impact",
          "each input perturbed alone within its domain: how far the output's change departs from the "
          "reference's, |d_out - d_ref| / |d_ref|; the worst input",
          pass_direction::at_most, thresholds::max_impact_deviation, ""};
}

filter_result input_impact_filter::do_evaluate(const filter_inputs& in) const {
  if (in.input_count == 0) throw missing_evidence("the task has no inputs listed");
  if (in.perturbations.size() < in.input_count)
    throw missing_evidence(fmt::format("{} of {} inputs perturbed", in.perturbations.size(), in.input_count));
  filter_result r{true, 0.0, thresholds::max_impact_deviation, ""};
  std::vector<std::string> notes;
  for (const auto& p : in.perturbations) {
    if (p.base.output->size() != p.base.reference->size() || p.perturbed.output->size() != p.base.reference->size())
      throw missing_evidence(fmt::format("input {}: outputs of different sizes", p.input));
    const auto sums = detail::impact_of(p);
    if (std::sqrt(sums.ref_change) <= 1e-7 * std::sqrt(sums.ref_norm)) {
      notes.push_back(fmt::format("{}: perturbation leaves the reference unchanged", p.input));
      continue;
    }
    const double value = std::isfinite(sums.deviation) ? std::sqrt(sums.deviation / sums.ref_change)
                                                       : std::numeric_limits<double>::infinity();
    if (value > r.value || !std::isfinite(value)) {
      r.value = value;
      r.reason =
          fmt::format("input {}: the output's change deviates from the reference's by {:.3g} of it", p.input, value);
    }
  }
  r.passed = r.value <= r.threshold;
  if (r.passed) {
    r.reason = "every input changes the output as it changes the reference";
    for (const auto& note : notes) r.reason += "; " + note;
  }
  return r;
}

}  // namespace pallasbench
