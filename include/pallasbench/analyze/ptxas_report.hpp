// The resource report of `ptxas -v`: per function its registers, barriers, stack frame, spills,
// static shared and constant memory, and whether it was compiled as an entry (a kernel).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pallasbench {

// One "Function properties for X" / "Compiling entry function 'X'" block of `ptxas -v`.
struct ptxas_function {
  std::string name;
  bool entry = false;  // compiled as an entry function (a kernel), not a device function it calls
  std::optional<std::int64_t> registers;
  std::optional<std::int64_t> barriers;
  std::optional<std::int64_t> stack_frame_bytes;
  std::optional<std::int64_t> spill_store_bytes;
  std::optional<std::int64_t> spill_load_bytes;
  std::optional<std::int64_t> shared_memory_bytes;    // static ("bytes smem")
  std::map<int, std::int64_t> constant_memory_bytes;  // bank -> bytes ("bytes cmem[0]")
};

struct ptxas_report {
  std::vector<ptxas_function> functions;
  std::vector<std::string> errors;  // "ptxas error/fatal" messages, for the reason of a missing entry
};

// Throws std::runtime_error "ptxas report line N: ..." on a line it recognises but cannot read
// (an unreadable clause, a non-ptxas line, an entry compiled twice, resources before any function).
[[nodiscard]] ptxas_report parse_ptxas_report(std::string_view text);

}  // namespace pallasbench
