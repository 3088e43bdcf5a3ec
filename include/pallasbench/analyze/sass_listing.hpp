// The SASS listing of `cuobjdump -sass`: per function its static instruction counts (memory
// accesses by width, tensor-core opcodes, FP32 arithmetic, special functions).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "pallasbench/analyze/compiler_values.hpp"

namespace pallasbench {

struct sass_function {
  std::string name;
  std::int64_t instructions = 0;  // NOP padding and @!PT-guarded fillers excluded
  std::map<std::string, std::int64_t> tensor_core_instructions;
  width_counts global_loads, global_stores, async_copies, shared_loads, shared_stores;
  std::int64_t tma_loads = 0, tma_stores = 0, ldmatrix = 0, local_loads = 0, local_stores = 0;
  std::int64_t ffma = 0, fmul = 0, fadd = 0;
  std::map<std::string, std::int64_t> special_functions;  // "MUFU.EX2" -> count
};

struct sass_listing {
  std::string arch;  // "sm_90a" from "code for sm_90a"; empty when absent
  std::vector<sass_function> functions;
};

// Throws std::runtime_error "SASS line N: ..." on an instruction outside a function, one without
// ';', one that is no SASS opcode, and a function listed twice.
[[nodiscard]] sass_listing parse_sass(std::string_view text);

// "wgmma" | "mma" | "none" from the tensor-core opcodes a function holds, SASS (HGMMA, HMMA, ...)
// or PTX (wgmma.mma_async..., mma.sync...).
[[nodiscard]] std::string tensor_core_kind(const std::map<std::string, std::int64_t>& instructions);

}  // namespace pallasbench
