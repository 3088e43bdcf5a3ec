// `pallasbench filters`: the registered robustness filters' descriptions (check/filters/registry.hpp)
// as a text table, JSON (what python/pallasbench/filters.py reads) or the markdown table of
// docs/filters.md (tests/e2e/test_cli_filters.py checks the doc holds it).
#pragma once

#include <string>
#include <vector>

#include "pallasbench/check/filters/filter.hpp"

namespace pallasbench::detail {

[[nodiscard]] std::string filters_text(const std::vector<filter_description>& filters);
[[nodiscard]] std::string filters_json(const std::vector<filter_description>& filters);
[[nodiscard]] std::string filters_markdown(const std::vector<filter_description>& filters);

}  // namespace pallasbench::detail
