// What the walks over a module's StableHLO share: op names and their classes (free, forbidden
// outside the kernels, reductions), element counts, the work of one op, and function lookup.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pallasbench/analyze/stablehlo_text.hpp"

namespace pallasbench::detail {

// "stablehlo.add" -> "add", "func.return" -> "return".
[[nodiscard]] std::string_view short_name(std::string_view name);

// A custom call carrying a Pallas kernel (k_pallas_targets).
[[nodiscard]] bool is_pallas_target(std::string_view target);

[[nodiscard]] double elements_of(std::span<const hlo_type> types);

// Bookkeeping and data movement: no arithmetic XLA would have to do (case/if and the Pallas
// custom calls are containers: what they hold is counted, not they).
[[nodiscard]] bool is_free_op(std::string_view kind);

// Work that belongs inside a kernel, or a route around the precision policy (convert,
// reduce_precision), or communication a single-device kernel never needs.
[[nodiscard]] bool is_forbidden_op(std::string_view kind);

// Ops whose work grows with their operands, not their results.
[[nodiscard]] bool is_reduction_op(std::string_view kind);

// Work of one op outside the kernels, in element operations (2 per multiply-add); kind is
// short_name(op.name).
[[nodiscard]] double work_of(const hlo_op& op, std::string_view kind);

// The integers of an attribute, in the pretty form ("dims = [1, 0]") or the generic one
// ("permutation = array<i64: 1, 0>"), under the first of `keys` the text has (a whole word);
// none when it has none of them.
[[nodiscard]] std::optional<std::vector<std::int64_t>> int_list_attribute(std::string_view text,
                                                                          std::initializer_list<std::string_view> keys);

// One integer attribute ("dim = 0", "dimension = 0 : i64"); none when absent.
[[nodiscard]] std::optional<std::int64_t> int_attribute(std::string_view text,
                                                        std::initializer_list<std::string_view> keys);

// Bytes of one element of a StableHLO element type ("f32" 4, "bf16" 2, "ui8" 1, "i1" 1,
// "complex<f32>" 8); module_parse_error (at `line`) for a type it cannot size.
[[nodiscard]] double element_bytes(std::string_view element, std::size_t line);

// Bytes of a value of the type.
[[nodiscard]] double bytes_of(const hlo_type& type, std::size_t line);

// The function called `name`; module_parse_error (at `line`, the call) when there is none.
[[nodiscard]] const hlo_function& find_function(const hlo_module& module, const std::string& name, std::size_t line);

// A walk's entry into the function a call at `line` reaches (the module's walkers: outside work,
// kernel dataflow, data movement): the function, found; called with its arity when `arity` is
// given; and not already being walked (`walking`, which it joins; the walker leaves it when
// done). module_parse_error otherwise.
[[nodiscard]] const hlo_function& enter_function(const hlo_module& module, const std::string& name, std::size_t line,
                                                 std::set<std::string>& walking,
                                                 std::optional<std::size_t> arity = std::nullopt);

}  // namespace pallasbench::detail
