// Counting what a module does outside its Pallas custom calls (the rules at the top of
// module_analysis.hpp): the work, the ops that did it, and what is refused there whatever its
// size (other custom calls, forbidden ops, loops carrying tensors).
#pragma once

#include <algorithm>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "pallasbench/analyze/module_analysis.hpp"
#include "pallasbench/analyze/stablehlo_text.hpp"

namespace pallasbench::detail {

// What a function (or @main) does outside the kernels, per call.
struct outside_totals {
  double pallas_calls = 0, outside_work = 0, kernel_output_elements = 0;
  std::map<std::string, double> op_work;
  std::vector<std::string> refused, forbidden, loops;  // each message once

  static void add_unique(std::vector<std::string>& list, const std::string& message) {
    if (std::find(list.begin(), list.end(), message) == list.end()) list.push_back(message);
  }
  void add(const outside_totals& other) {
    pallas_calls += other.pallas_calls;
    outside_work += other.outside_work;
    kernel_output_elements += other.kernel_output_elements;
    for (const auto& [op, work] : other.op_work) op_work[op] += work;
    for (const auto& m : other.refused) add_unique(refused, m);
    for (const auto& m : other.forbidden) add_unique(forbidden, m);
    for (const auto& m : other.loops) add_unique(loops, m);
  }
};

// The totals of one call of `function` (called at `line`), callees counted per call site.
// Throws module_parse_error on a call to an undefined function and on recursion.
[[nodiscard]] outside_totals count_outside_work(const hlo_module& module, const std::string& function, std::size_t line,
                                                const module_analysis_options& options);

}  // namespace pallasbench::detail
