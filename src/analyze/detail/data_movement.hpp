// Where the data outside the Pallas kernels comes from (the rules at the top of
// module_analysis.hpp): a taint flow from @main's arguments through every op, call and region,
// which finds the ops that address data by an input's values and counts the bytes that ops
// outside the kernels move, leaving out what derives from weights and constants only.
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "pallasbench/analyze/stablehlo_text.hpp"

namespace pallasbench::detail {

// The @main arguments a value derives from (through data, addresses or control).
using arg_set = std::set<std::size_t>;

// An op whose addresses (start indices, gather/scatter indices, a case's branch) derive from inputs.
struct addressing_use {
  std::string op;    // "stablehlo.dynamic_slice"
  std::string what;  // "its start indices", "its indices", "its branch"
  std::size_t line = 0;
  arg_set args;
};

// What a function (or @main) moves outside the kernels, per call.
struct movement_totals {
  double moved_bytes = 0;
  std::map<std::string, double> op_bytes;
  std::vector<addressing_use> addressing;  // each (op, line) once
  void add(const movement_totals& other);
};

// The totals of one call of @main; weight_args[i]: @main's argument i is a weight of the task.
// scalar_setup_elements: a case/if returning at most this many elements picks no data. Throws
// module_parse_error as results_from_kernel does, and for an element type it cannot size.
[[nodiscard]] movement_totals count_data_movement(const hlo_module& module, const std::vector<bool>& weight_args,
                                                  double scalar_setup_elements);

}  // namespace pallasbench::detail
