// The .entry functions of XLA's PTX, the cross-check of the SASS: launch bounds, global and
// asynchronous accesses by width, TMA copies, tensor-core and special-function instructions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pallasbench/analyze/compiler_values.hpp"

namespace pallasbench {

struct ptx_entry {
  std::string name;
  std::optional<dim3_values> reqntid, maxntid;  // missing trailing dimensions are 1
  width_counts global_loads, global_stores, async_copies;
  std::int64_t tma_loads = 0, tma_stores = 0;
  std::map<std::string, std::int64_t> tensor_core_instructions;  // wgmma.mma_async... / mma.sync...
  std::map<std::string, std::int64_t> special_functions;         // "ex2" -> count
};

// The entries with a body, in order (declarations are skipped). Throws std::runtime_error
// "PTX line N: ..." on an unterminated entry, an unreadable launch bound, an unknown access type,
// a cp.async without a copy size and an unbalanced '}'.
[[nodiscard]] std::vector<ptx_entry> parse_ptx(std::string_view text);

}  // namespace pallasbench
