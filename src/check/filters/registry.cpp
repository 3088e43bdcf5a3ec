#include "pallasbench/check/filters/registry.hpp"

#include "pallasbench/check/filters/axes_variation.hpp"
#include "pallasbench/check/filters/input_impact.hpp"
#include "pallasbench/check/filters/output_range.hpp"
#include "pallasbench/check/filters/output_std.hpp"
#include "pallasbench/check/filters/source_analysis.hpp"

namespace pallasbench {

std::vector<std::unique_ptr<robustness_filter>> default_filters() {
  std::vector<std::unique_ptr<robustness_filter>> filters;
  filters.push_back(std::make_unique<output_range_filter>());
  filters.push_back(std::make_unique<output_std_filter>());
  filters.push_back(std::make_unique<axes_variation_filter>());
  filters.push_back(std::make_unique<input_impact_filter>());
  filters.push_back(std::make_unique<source_analysis_filter>());
  return filters;
}

std::vector<filter_description> filter_descriptions() {
  std::vector<filter_description> out;
  for (const auto& filter : default_filters()) out.push_back(filter->describe());
  return out;
}

nlohmann::json run_filters(const std::vector<std::unique_ptr<robustness_filter>>& filters, const filter_inputs& in,
                           bool& all_passed) {
  nlohmann::json out = nlohmann::json::object();
  all_passed = true;
  for (const auto& filter : filters) {
    const filter_result result = filter->evaluate(in);  // never throws for the filter: it fails instead
    all_passed = all_passed && result.passed;
    out[filter->name()] = result.to_json();
  }
  return out;
}

}  // namespace pallasbench
