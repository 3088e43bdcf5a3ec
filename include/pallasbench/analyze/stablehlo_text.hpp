// A reader for the StableHLO text of a module (what `jax.export`'s `mlir_module()` prints), enough
// to walk its functions, ops, regions and value uses. Not a verifier: it keeps what the source
// analysis reads (op names, operands, results and their types, callees, regions, the op's own
// attribute text) and skips the rest, but it refuses text it cannot follow rather than guess.
#pragma once

#include <cstddef>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace pallasbench {

// Text that is not a module this reader can follow; what() names the line and what was expected.
class module_parse_error : public std::runtime_error {
public:
  module_parse_error(std::size_t line, const std::string& what);
  [[nodiscard]] std::size_t line() const { return m_line; }

private:
  std::size_t m_line;
};

// One value's type: tensor<4x8xf32> has dims {4, 8}, element "f32", 32 elements; tensor<f32> one;
// a tuple sums its members (element: the first member's). Dynamic dims (`?`) are refused.
struct hlo_type {
  std::string text;
  std::string element;
  std::vector<double> dims;
  double elements = 0;
};

struct hlo_op;

// A region's blocks, flattened: their arguments, then their ops in order.
struct hlo_region {
  std::vector<std::string> args;
  std::vector<hlo_op> ops;
};

struct hlo_op {
  std::string name;                                   // full name: "stablehlo.add", "func.call", "return"
  std::vector<std::string> results;                   // "%0", or "%4#0", "%4#1" for a group "%4:2"
  std::vector<std::string> operands;                  // uses, as written ("%arg0", "%4#1")
  std::vector<hlo_type> operand_types, result_types;  // from the signature after ':' (may be empty)
  std::vector<hlo_region> regions;
  std::string callee;  // call / composite: the function; custom_call: its target
  std::string text;    // the op's own text (attributes), regions left out
  std::size_t line = 0;
};

struct hlo_function {
  std::string name;
  std::vector<std::string> args;
  std::vector<hlo_type> arg_types, result_types;
  hlo_region body;
  std::size_t line = 0;
};

struct hlo_module {
  std::map<std::string, hlo_function> functions;
};

// The lexical layer under parse_stablehlo. A type (tensor<4x8xf32>, tuple<...>, !tt.ptr<f32>) is
// one token; a value is %name or %name#index; a symbol @name or @"name"; a label ^bb0.
enum class hlo_token_kind { value, symbol, label, ident, type, string, number, arrow, punct, end };

struct hlo_token {
  hlo_token_kind kind;
  std::string_view text;
  std::size_t line, begin, end;  // offsets in the text; end: just past the token
  [[nodiscard]] bool is(char c) const { return kind == hlo_token_kind::punct && text[0] == c; }
};

// The tokens of (location-free) text, `//` comments skipped, closed by a token of kind end.
[[nodiscard]] std::vector<hlo_token> tokenize_stablehlo(std::string_view text);

// Index just past the string literal that starts at text[i] (a '"').
[[nodiscard]] std::size_t skip_string_literal(std::string_view text, std::size_t i);

// The text without `loc(...)` annotations, `#loc` alias lines and the trailing `{-# ... #-}`
// resource block; line breaks are kept so that line numbers still match the input.
[[nodiscard]] std::string strip_locations(std::string_view text);

// Parses the module's func.func definitions (strip_locations first); throws module_parse_error.
[[nodiscard]] hlo_module parse_stablehlo(std::string_view text);

// The type's parts; throws module_parse_error (with `line`) for a type it cannot read.
[[nodiscard]] hlo_type parse_type(std::string_view text, std::size_t line);

}  // namespace pallasbench
