// Value types the compiler-artifact parsers share.
#pragma once

#include <array>
#include <cstdint>
#include <map>

namespace pallasbench {

using dim3_values = std::array<std::int64_t, 3>;   // x, y, z of a grid, block or cluster
using width_counts = std::map<int, std::int64_t>;  // bytes per thread -> instructions

}  // namespace pallasbench
