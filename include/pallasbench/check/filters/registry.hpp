// The filters a robustness check runs, and running them into the record's "filters" object.
#pragma once

#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "pallasbench/check/filters/filter.hpp"

namespace pallasbench {

// The five filters, in record order.
[[nodiscard]] std::vector<std::unique_ptr<robustness_filter>> default_filters();

// Every filter's evaluate() under its name; all_passed: every one passed.
[[nodiscard]] nlohmann::json run_filters(const std::vector<std::unique_ptr<robustness_filter>>& filters,
                                         const filter_inputs& in, bool& all_passed);

}  // namespace pallasbench
