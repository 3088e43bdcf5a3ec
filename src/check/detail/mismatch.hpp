// Why an output failed its comparison, read from the data: the worst elements and a hint naming a
// likely cause (NaN/Inf, all zeros, a transposed or shifted result, a constant factor, a wrong axis).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "pallasbench/check/compare.hpp"

namespace pallasbench::detail {

struct mismatch_detail {
  std::vector<worst_element> worst;  // the largest errors first
  std::string hint;                  // "" when no cause shows in the data
};

// `out` and `ref` hold one C-order array each (shape `shape`), in double. The worst `count`
// elements by |out - ref| (a NaN/Inf where the reference is finite, or a NaN/Inf that differs,
// counts as infinite), and the first hint the data supports.
[[nodiscard]] mismatch_detail explain_mismatch(std::span<const double> out, std::span<const double> ref,
                                               const std::vector<std::int64_t>& shape, const tolerance& tol,
                                               std::size_t count = k_worst_elements);

// For a shape mismatch: "the reference's shape with axes 0 and 1 swapped ..." when the output's
// shape is the reference's with two axes swapped; "" otherwise.
[[nodiscard]] std::string shape_hint(const std::vector<std::int64_t>& out, const std::vector<std::int64_t>& ref);

}  // namespace pallasbench::detail
