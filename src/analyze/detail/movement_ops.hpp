// Data movement outside the Pallas kernels, op by op (the rules at the top of module_analysis.hpp):
// which bytes an op puts at another multi-index than they had, and which operands address data.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "pallasbench/analyze/stablehlo_text.hpp"

namespace pallasbench::detail {

// transpose, reverse, slice, pad, concatenate, dynamic_slice, real_dynamic_slice and a
// broadcast_in_dim that reorders its operand's dimensions.
[[nodiscard]] bool is_movement_op(std::string_view kind);

// The bytes the op moves; counted[i]: operand i's data counts (it derives from an input that is
// not a weight). kind is short_name(op.name). Throws module_parse_error for an element type it
// cannot size or a movement op whose layout attributes it cannot read.
[[nodiscard]] double moved_bytes(const hlo_op& op, std::string_view kind, const std::vector<bool>& counted);

// The operands that say where the op reads or writes its data (the start indices of
// dynamic_slice, real_dynamic_slice and dynamic_update_slice; the indices of gather and scatter);
// empty for every other op.
[[nodiscard]] std::vector<std::size_t> address_operands(const hlo_op& op, std::string_view kind);

}  // namespace pallasbench::detail
