#include "movement_ops.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "hlo_ops.hpp"

namespace pallasbench::detail {
namespace {

using int_list = std::vector<std::int64_t>;

// The attribute under one of `keys`; module_parse_error when the op has none of them.
int_list required_list(const hlo_op& op, std::initializer_list<std::string_view> keys) {
  if (auto values = int_list_attribute(op.text, keys)) return *values;
  throw module_parse_error(op.line, fmt::format("{}: cannot read its {} attribute", op.name, *keys.begin()));
}

const hlo_type& operand_type(const hlo_op& op, std::size_t index) {
  if (index >= op.operand_types.size())
    throw module_parse_error(op.line, fmt::format("{}: no type for operand {}", op.name, index));
  return op.operand_types[index];
}

const hlo_type& result_type(const hlo_op& op) {
  if (op.result_types.empty()) throw module_parse_error(op.line, fmt::format("{}: no result type", op.name));
  return op.result_types.front();
}

double size_of(const hlo_type& type, std::int64_t dim) {
  return dim >= 0 && static_cast<std::size_t>(dim) < type.dims.size() ? type.dims[static_cast<std::size_t>(dim)] : 1;
}

// A mapping of operand dimension i to result dimension to[i] keeps every element's row-major
// rank when the dimensions of size > 1 keep their order (size-1 dimensions move nothing).
bool keeps_order(const hlo_type& operand, const int_list& to) {
  std::optional<std::int64_t> last;
  for (std::size_t i = 0; i < to.size(); ++i) {
    if (size_of(operand, static_cast<std::int64_t>(i)) <= 1) continue;
    if (last && to[i] < *last) return false;
    last = to[i];
  }
  return true;
}

// The inverse of a permutation (result dim r takes operand dim perm[r]).
int_list inverse(const int_list& perm) {
  int_list out(perm.size(), 0);
  for (std::size_t r = 0; r < perm.size(); ++r)
    if (perm[r] >= 0 && static_cast<std::size_t>(perm[r]) < perm.size())
      out[static_cast<std::size_t>(perm[r])] = static_cast<std::int64_t>(r);
  return out;
}

// "0:8:2" -> {0, 8, 2}.
int_list split_integers(const hlo_op& op, std::string_view text) {
  int_list out;
  for (std::size_t begin = 0; begin <= text.size();) {
    const std::size_t end = std::min(text.find(':', begin), text.size());
    std::string part(text.substr(begin, end - begin));
    part.erase(std::remove(part.begin(), part.end(), ' '), part.end());
    try {
      std::size_t used = 0;
      out.push_back(std::stoll(part, &used));
      if (used != part.size()) throw std::invalid_argument(part);
    } catch (const std::logic_error&) {
      throw module_parse_error(op.line, fmt::format("{}: cannot read the slice bound '{}'", op.name, part));
    }
    begin = end + 1;
  }
  return out;
}

// "[0:8, 2:16:2]" (pretty) or start_indices / strides (generic): true when every start is 0 and
// every stride 1, a prefix of each dimension.
bool slice_is_prefix(const hlo_op& op) {
  int_list starts, strides;
  if (auto generic = int_list_attribute(op.text, {"start_indices"})) {
    starts = *generic;
    strides = int_list_attribute(op.text, {"strides"}).value_or(int_list{});
  } else {
    const std::size_t open = op.text.find('[');
    const std::size_t close = op.text.find(']', open == std::string::npos ? 0 : open);
    if (open == std::string::npos || close == std::string::npos)
      throw module_parse_error(op.line, fmt::format("{}: cannot read its slice bounds", op.name));
    const std::string_view ranges = std::string_view(op.text).substr(open + 1, close - open - 1);
    const bool rank0 = ranges.find_first_not_of(' ') == std::string_view::npos;
    for (std::size_t begin = 0; !rank0 && begin <= ranges.size();) {  // "start:limit" or "start:limit:stride"
      const std::size_t end = std::min(ranges.find(',', begin), ranges.size());
      const auto parts = split_integers(op, ranges.substr(begin, end - begin));
      if (parts.size() < 2 || parts.size() > 3)
        throw module_parse_error(op.line, fmt::format("{}: cannot read its slice bounds", op.name));
      starts.push_back(parts[0]);
      if (parts.size() == 3) strides.push_back(parts[2]);
      begin = end + 1;
    }
  }
  return std::all_of(starts.begin(), starts.end(), [](auto s) { return s == 0; }) &&
         std::all_of(strides.begin(), strides.end(), [](auto s) { return s == 1; });
}

// Operand i of a concatenate moves when operands before it fill some of the dimension.
double concatenated_bytes(const hlo_op& op, const std::vector<bool>& counted) {
  const auto dim = int_attribute(op.text, {"dim", "dimension"});
  if (!dim) throw module_parse_error(op.line, fmt::format("{}: cannot read its dimension", op.name));
  double offset = 0, moved = 0;
  for (std::size_t i = 0; i < op.operand_types.size(); ++i) {
    if (offset > 0 && i < counted.size() && counted[i]) moved += bytes_of(op.operand_types[i], op.line);
    offset += size_of(op.operand_types[i], *dim);
  }
  return moved;
}

bool all_zero(const int_list& values) {
  return std::all_of(values.begin(), values.end(), [](auto v) { return v == 0; });
}

}  // namespace

bool is_movement_op(std::string_view kind) {
  return kind == "transpose" || kind == "reverse" || kind == "slice" || kind == "pad" || kind == "concatenate" ||
         kind == "dynamic_slice" || kind == "real_dynamic_slice" || kind == "broadcast_in_dim";
}

double moved_bytes(const hlo_op& op, std::string_view kind, const std::vector<bool>& counted) {
  if (kind == "concatenate") return concatenated_bytes(op, counted);
  if (counted.empty() || !counted[0]) return 0;  // the data operand derives from weights and constants only
  const double result_bytes = bytes_of(result_type(op), op.line);
  if (kind == "transpose")
    return keeps_order(operand_type(op, 0), inverse(required_list(op, {"dims", "permutation"}))) ? 0 : result_bytes;
  if (kind == "broadcast_in_dim")
    return keeps_order(operand_type(op, 0), required_list(op, {"dims", "broadcast_dimensions"})) ? 0 : result_bytes;
  if (kind == "reverse") {
    const auto dims = required_list(op, {"dims", "dimensions"});
    return std::all_of(dims.begin(), dims.end(), [&](auto d) { return size_of(operand_type(op, 0), d) <= 1; })
               ? 0
               : result_bytes;
  }
  if (kind == "slice") return slice_is_prefix(op) ? 0 : result_bytes;
  if (kind == "pad")
    return all_zero(required_list(op, {"low", "edge_padding_low"})) &&
                   all_zero(required_list(op, {"interior", "interior_padding"}))
               ? 0
               : bytes_of(operand_type(op, 0), op.line);
  if (kind == "dynamic_slice" || kind == "real_dynamic_slice") return result_bytes;
  return 0;
}

std::vector<std::size_t> address_operands(const hlo_op& op, std::string_view kind) {
  std::vector<std::size_t> out;
  const std::size_t n = op.operands.size();
  const auto from = [&](std::size_t first) {
    for (std::size_t i = first; i < n; ++i) out.push_back(i);
  };
  if (kind == "dynamic_slice" || kind == "real_dynamic_slice") from(1);
  if (kind == "dynamic_update_slice") from(2);
  if ((kind == "gather" || kind == "dynamic_gather") && n > 1) out.push_back(1);
  if (kind == "scatter" && n > op.results.size()) out.push_back(op.results.size());  // after the inputs
  return out;
}

}  // namespace pallasbench::detail
