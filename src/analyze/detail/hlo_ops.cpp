#include "hlo_ops.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
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

// Dimension `index` of type (1 when it has none there).
double dim_of(const hlo_type& type, std::size_t index) { return index < type.dims.size() ? type.dims[index] : 1.0; }

double contraction_size(const hlo_op& op, std::string_view kind) {
  if (op.operand_types.empty()) return 1;
  const hlo_type& lhs = op.operand_types[0];
  if (kind == "dot") return lhs.dims.empty() ? 1 : lhs.dims.back();
  if (kind == "dot_general") {
    const auto dims = int_list_attribute(op.text, {"contracting_dims", "lhs_contracting_dimensions"})
                          .value_or(std::vector<std::int64_t>{});
    return std::accumulate(dims.begin(), dims.end(), 1.0, [&](double product, std::int64_t d) {
      return d < 0 ? product : product * dim_of(lhs, static_cast<std::size_t>(d));
    });
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

namespace {

// Where `key = ` starts in text as a whole word (npos when absent): "dims" is not "contracting_dims".
std::size_t find_key(std::string_view text, std::string_view key) {
  const auto is_word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t at = text.find(key); at != std::string_view::npos; at = text.find(key, at + 1)) {
    const std::size_t after = at + key.size();
    if ((at > 0 && is_word(text[at - 1])) || text.substr(after).find(" = ") != 0) continue;
    return after + 3;
  }
  return std::string_view::npos;
}

// The signed integers of text up to the first `close` (or its end).
std::vector<std::int64_t> integers_until(std::string_view text, char close) {
  std::vector<std::int64_t> out;
  const std::size_t end = std::min(text.find(close), text.size());
  for (std::size_t i = 0; i < end; ++i) {
    const bool negative = text[i] == '-' && i + 1 < end && std::isdigit(static_cast<unsigned char>(text[i + 1]));
    if (!negative && !std::isdigit(static_cast<unsigned char>(text[i]))) continue;
    std::size_t j = i + (negative ? 1 : 0);
    std::int64_t value = 0;
    for (; j < end && std::isdigit(static_cast<unsigned char>(text[j])); ++j) value = value * 10 + (text[j] - '0');
    out.push_back(negative ? -value : value);
    i = j;
  }
  return out;
}

}  // namespace

std::optional<std::vector<std::int64_t>> int_list_attribute(std::string_view text,
                                                            std::initializer_list<std::string_view> keys) {
  for (const auto key : keys) {
    const std::size_t at = find_key(text, key);
    if (at == std::string_view::npos) continue;
    const std::string_view rest = text.substr(at);
    if (rest.starts_with("[")) return integers_until(rest.substr(1), ']');
    if (rest.starts_with("array<i64>")) return std::vector<std::int64_t>{};
    if (rest.starts_with("array<i64:")) return integers_until(rest.substr(10), '>');
  }
  return std::nullopt;
}

std::optional<std::int64_t> int_attribute(std::string_view text, std::initializer_list<std::string_view> keys) {
  for (const auto key : keys) {
    const std::size_t at = find_key(text, key);
    if (at == std::string_view::npos) continue;
    const auto values = integers_until(text.substr(at), ' ');
    if (values.size() == 1) return values.front();
  }
  return std::nullopt;
}

double element_bytes(std::string_view element, std::size_t line) {
  if (element == "i1" || element == "index") return element == "i1" ? 1 : 8;  // XLA keeps a pred in a byte
  if (element.starts_with("complex<") && element.ends_with(">"))
    return 2 * element_bytes(element.substr(8, element.size() - 9), line);
  const std::size_t digits = element.find_first_of("0123456789");
  const std::string_view prefix = element.substr(0, digits);
  if (digits != std::string_view::npos &&
      (prefix == "f" || prefix == "bf" || prefix == "i" || prefix == "ui" || prefix == "si" || prefix == "tf")) {
    int bits = 0;
    for (std::size_t i = digits; i < element.size() && std::isdigit(static_cast<unsigned char>(element[i])); ++i)
      bits = bits * 10 + (element[i] - '0');
    if (bits > 0) return std::max(1, bits / 8);  // sub-byte types take a byte each, as XLA stores them unpacked
  }
  throw module_parse_error(line, fmt::format("cannot tell the size of the element type '{}'", element));
}

double bytes_of(const hlo_type& type, std::size_t line) {
  return type.elements > 0 ? type.elements * element_bytes(type.element, line) : 0;  // tokens hold no data
}

const hlo_function& find_function(const hlo_module& module, const std::string& name, std::size_t line) {
  const auto it = module.functions.find(name);
  if (it == module.functions.end()) throw module_parse_error(line, fmt::format("call to undefined function @{}", name));
  return it->second;
}

const hlo_function& enter_function(const hlo_module& module, const std::string& name, std::size_t line,
                                   std::set<std::string>& walking, std::optional<std::size_t> arity) {
  const hlo_function& fn = find_function(module, name, line);
  if (arity && fn.args.size() != *arity)
    throw module_parse_error(line, fmt::format("@{} takes {} arguments, called with {}", name, fn.args.size(), *arity));
  if (!walking.insert(name).second) throw module_parse_error(line, fmt::format("recursive call to @{}", name));
  return fn;
}

}  // namespace pallasbench::detail
