// The filters a robustness check runs, what they say of themselves, and running them into the
// record's "filters" object. A filter is its own header and source plus one line in
// default_filters(): everything else (records, `pallasbench filters`, the schema, the card, the
// tests) reads the list from here.
#pragma once

#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "pallasbench/check/filters/filter.hpp"

namespace pallasbench {

// Every filter a robustness check runs, in the order `pallasbench filters` and the card list them.
[[nodiscard]] std::vector<std::unique_ptr<robustness_filter>> default_filters();

// describe() of each of default_filters(), in their order.
[[nodiscard]] std::vector<filter_description> filter_descriptions();

// Every filter's evaluate() under its name; all_passed: every one passed.
[[nodiscard]] nlohmann::json run_filters(const std::vector<std::unique_ptr<robustness_filter>>& filters,
                                         const filter_inputs& in, bool& all_passed);

}  // namespace pallasbench
