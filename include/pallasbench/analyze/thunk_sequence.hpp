// XLA's thunk sequence (*.thunk_sequence.txt): the launches XLA makes, with grid, threads,
// cluster and dynamic shared memory of each kernel launch.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pallasbench/analyze/compiler_values.hpp"

namespace pallasbench {

// One launch in XLA's thunk sequence. Thunks that launch nothing have a kind only.
struct thunk_launch {
  std::string kind;  // "kCustomKernel", "kKernel", "kCopy", ...
  std::string name;  // the entry function launched; empty for non-kernel thunks
  std::optional<dim3_values> grid, threads, cluster;
  std::optional<std::int64_t> shared_memory_bytes;
};

// Throws std::runtime_error "thunk sequence line N: ..." on a kCustomKernel or kKernel launch it
// cannot read.
[[nodiscard]] std::vector<thunk_launch> parse_thunk_sequence(std::string_view text);

}  // namespace pallasbench
