#include "hlo_ops.hpp"

#include <algorithm>
#include <cctype>
#include <functional>
#include <numeric>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "pallasbench/analyze/module_analysis.hpp"

namespace pallasbench::detail {
namespace {

using name_set = std::set<std::string, std::less<>>;

// The words of a space-separated list.
name_set words(std::string_view list) {
  name_set out;
  for (std::size_t begin = list.find_first_not_of(' '); begin != std::string_view::npos;) {
    const std::size_t end = std::min(list.find(' ', begin), list.size());
    out.emplace(list.substr(begin, end - begin));
    begin = list.find_first_not_of(' ', end);
  }
  return out;
}

const name_set k_free = words(
    "constant reshape broadcast_in_dim broadcast transpose slice dynamic_slice real_dynamic_slice pad concatenate "
    "reverse iota get_tuple_element tuple bitcast_convert optimization_barrier return get_dimension_size after_all "
    "create_token partition_id replica_id case if");
const name_set k_forbidden = words(
    "dot_general dot convolution gather scatter dynamic_update_slice sort top_k fft triangular_solve cholesky "
    "reduce_window select_and_scatter rng rng_bit_generator convert reduce_precision all_reduce all_gather "
    "all_to_all reduce_scatter collective_permute collective_broadcast infeed outfeed send recv");
const name_set k_reductions = words("reduce reduce_window dot dot_general convolution select_and_scatter");

// The integers of "key = [1, 2]" in text (empty when absent).
std::vector<std::size_t> index_list(std::string_view text, std::string_view key) {
  std::vector<std::size_t> out;
  const std::size_t at = text.find(fmt::format("{} = [", key));
  if (at == std::string_view::npos) return out;
  std::size_t i = at + key.size() + 4;
  while (i < text.size() && text[i] != ']') {
    if (std::isdigit(static_cast<unsigned char>(text[i]))) {
      std::size_t end = i;
      while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
      out.push_back(std::stoul(std::string(text.substr(i, end - i))));
      i = end;
    } else {
      ++i;
    }
  }
  return out;
}

// Dimension `index` of type (1 when it has none there).
double dim_of(const hlo_type& type, std::size_t index) { return index < type.dims.size() ? type.dims[index] : 1.0; }

double contraction_size(const hlo_op& op, std::string_view kind) {
  if (op.operand_types.empty()) return 1;
  const hlo_type& lhs = op.operand_types[0];
  if (kind == "dot") return lhs.dims.empty() ? 1 : lhs.dims.back();
  if (kind == "dot_general") {
    auto dims = index_list(op.text, "contracting_dims");
    if (dims.empty()) dims = index_list(op.text, "lhs_contracting_dimensions");
    return std::accumulate(dims.begin(), dims.end(), 1.0,
                           [&](double product, std::size_t d) { return product * dim_of(lhs, d); });
  }
  // convolution: each output element reads the kernel elements of one output feature.
  if (op.operand_types.size() < 2) return 1;
  const hlo_type& rhs = op.operand_types[1];
  std::size_t feature = rhs.dims.empty() ? 0 : rhs.dims.size() - 1;
  const std::size_t arrow = op.text.find("]x[");
  if (arrow != std::string::npos) {  // dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f]
    const std::string_view spec = std::string_view(op.text).substr(arrow + 3, op.text.find(']', arrow + 3) - arrow - 3);
    std::size_t index = 0;
    for (std::size_t i = 0; i < spec.size(); ++i) {
      if (spec[i] == ',') ++index;
      if (spec[i] == 'o') feature = index;
    }
  }
  const double features = dim_of(rhs, feature);
  return features > 0 ? rhs.elements / features : 1;
}

}  // namespace

std::string_view short_name(std::string_view name) {
  const std::size_t dot = name.rfind('.');
  return dot == std::string_view::npos ? name : name.substr(dot + 1);
}

bool is_pallas_target(std::string_view target) {
  return std::find(k_pallas_targets.begin(), k_pallas_targets.end(), target) != k_pallas_targets.end();
}

double elements_of(std::span<const hlo_type> types) {
  double total = 0;
  for (const auto& type : types) total += type.elements;
  return total;
}

bool is_free_op(std::string_view kind) { return k_free.contains(kind); }

bool is_forbidden_op(std::string_view kind) { return k_forbidden.contains(kind); }

bool is_reduction_op(std::string_view kind) { return k_reductions.contains(kind); }

double work_of(const hlo_op& op, std::string_view kind) {
  const double results = elements_of(op.result_types);
  if (kind == "reduce" || kind == "reduce_window")
    return elements_of(std::span(op.operand_types).first(op.operand_types.size() / 2));
  if (kind == "dot" || kind == "dot_general" || kind == "convolution") return 2 * results * contraction_size(op, kind);
  return results;
}

const hlo_function& find_function(const hlo_module& module, const std::string& name, std::size_t line) {
  const auto it = module.functions.find(name);
  if (it == module.functions.end()) throw module_parse_error(line, fmt::format("call to undefined function @{}", name));
  return it->second;
}

}  // namespace pallasbench::detail
