// Which results of a function depend on a Pallas kernel's result (the dataflow rules at the top
// of module_analysis.hpp): output_from_kernel is this over @main.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "pallasbench/analyze/stablehlo_text.hpp"

namespace pallasbench::detail {

// Per result of `function` (called at `line`): does it depend on a kernel, given which of its
// arguments do. Throws module_parse_error on a call to an undefined function or with the wrong
// number of arguments, on recursion, on a use of an undefined value and on an op whose regions
// return another number of values than it has results.
[[nodiscard]] std::vector<bool> results_from_kernel(const hlo_module& module, const std::string& function,
                                                    const std::vector<bool>& args, std::size_t line);

}  // namespace pallasbench::detail
