#include "pallasbench/analyze/stablehlo_text.hpp"

#include <cctype>

#include <fmt/format.h>

#include "detail/text.hpp"

namespace pallasbench {

module_parse_error::module_parse_error(std::size_t line, const std::string& what)
    : std::runtime_error(fmt::format("StableHLO line {}: {}", line, what)), m_line(line) {}

// Escapes are a backslash and what follows it.
std::size_t skip_string_literal(std::string_view text, std::size_t i) {
  for (++i; i < text.size() && text[i] != '"'; ++i)
    if (text[i] == '\\') ++i;
  return std::min(i + 1, text.size());
}

namespace {

using detail::trim;

bool is_id_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.'; }

// Blanks text[begin, end) in out, keeping its line breaks.
void blank(std::string& out, std::string_view text, std::size_t begin, std::size_t end) {
  for (std::size_t k = begin; k < end; ++k)
    if (text[k] == '\n') out += '\n';
}

}  // namespace

std::string strip_locations(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool line_start = true;
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (line_start && text.substr(i).starts_with("#loc")) {  // alias definitions: whole line
      const std::size_t end = std::min(text.find('\n', i), text.size());
      i = end;
      continue;
    }
    if (c == '\n' || c == ' ' || c == '\t') {
      line_start = line_start || c == '\n';
      out += c;
      ++i;
      continue;
    }
    line_start = false;
    if (c == '"') {
      const std::size_t end = skip_string_literal(text, i);
      out.append(text.substr(i, end - i));
      i = end;
    } else if (text.substr(i).starts_with("{-#")) {  // trailing resource block
      const std::size_t end = std::min(text.find("#-}", i), text.size());
      blank(out, text, i, end);
      i = std::min(end + 3, text.size());
    } else if (text.substr(i).starts_with("loc(") && (i == 0 || !is_id_char(text[i - 1]))) {
      std::size_t k = i + 4;
      for (int depth = 1; k < text.size() && depth > 0;) {
        if (text[k] == '"') {
          k = skip_string_literal(text, k);
          continue;
        }
        depth += text[k] == '(' ? 1 : text[k] == ')' ? -1 : 0;
        ++k;
      }
      blank(out, text, i, k);
      while (!out.empty() && out.back() == ' ') out.pop_back();  // the space before loc(
      i = k;
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

namespace {

std::vector<double> tensor_dims(std::string_view& inner, std::size_t line) {
  std::vector<double> dims;
  for (;;) {
    std::size_t k = 0;
    while (k < inner.size() && std::isdigit(static_cast<unsigned char>(inner[k]))) ++k;
    if (k < inner.size() && inner[k] == '?') throw module_parse_error(line, "dynamic dimension in a tensor type");
    if (k == 0 || k >= inner.size() || inner[k] != 'x') return dims;
    dims.push_back(std::stod(std::string(inner.substr(0, k))));
    inner.remove_prefix(k + 1);
  }
}

// The parts of text split at commas outside <>, () and [].
std::vector<std::string_view> split_top_level(std::string_view text) {
  std::vector<std::string_view> parts;
  int depth = 0;
  std::size_t begin = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '<' || c == '(' || c == '[') ++depth;
    if ((c == '>' && (i == 0 || text[i - 1] != '-')) || c == ')' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(text.substr(begin, i - begin));
      begin = i + 1;
    }
  }
  parts.push_back(text.substr(begin));
  return parts;
}

// i32, ui8, f32, bf16, f8E4M3FN, index, complex<f32>: the element types a tensor can hold.
bool is_scalar_type(std::string_view t) {
  const std::size_t digits = t.find_first_of("0123456789");
  const std::string_view prefix = t.substr(0, digits);
  const bool known_prefix =
      prefix == "i" || prefix == "ui" || prefix == "si" || prefix == "f" || prefix == "bf" || prefix == "tf";
  return t == "index" || t == "none" || t.starts_with("complex<") ||
         (digits > 0 && digits != std::string_view::npos && known_prefix);
}

}  // namespace

hlo_type parse_type(std::string_view text, std::size_t line) {
  text = trim(text);
  hlo_type type{std::string(text), std::string(text), {}, 1};
  const auto inner_of = [&](std::string_view prefix) {
    if (!text.starts_with(prefix) || !text.ends_with(">"))
      throw module_parse_error(line, fmt::format("unreadable type '{}'", text));
    return text.substr(prefix.size(), text.size() - prefix.size() - 1);
  };
  if (text.starts_with("tensor<")) {
    std::string_view inner = inner_of("tensor<");
    type.dims = tensor_dims(inner, line);
    type.element = std::string(trim(split_top_level(inner).front()));
    for (double d : type.dims) type.elements *= d;
  } else if (text.starts_with("tuple<")) {
    const std::string_view inner = trim(inner_of("tuple<"));
    type.elements = 0;
    type.element.clear();
    if (!inner.empty()) {
      for (const auto part : split_top_level(inner)) {
        const hlo_type member = parse_type(part, line);
        type.elements += member.elements;
        if (type.element.empty()) type.element = member.element;
      }
    }
  } else if (text.starts_with("!")) {
    type.elements = 0;  // tokens and other opaque types carry no tensor data
  } else if (!is_scalar_type(text)) {
    throw module_parse_error(line, fmt::format("expected a type, found '{}'", text));
  }
  return type;
}

namespace {

using tok = hlo_token_kind;

bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

std::size_t id_end(std::string_view text, std::size_t i, bool dashes) {
  while (i < text.size() && (is_id_char(text[i]) || (dashes && text[i] == '-'))) ++i;
  return i;
}

// Index just past the '>' matching the '<' at text[i].
std::size_t angle_end(std::string_view text, std::size_t i) {
  for (int depth = 0; i < text.size(); ++i) {
    if (text[i] == '"') i = skip_string_literal(text, i) - 1;
    if (text[i] == '<') ++depth;
    if (text[i] == '>' && text[i - 1] != '-' && --depth == 0) return i + 1;
  }
  return text.size();
}

bool names_type(std::string_view id) {
  return id == "tensor" || id == "tuple" || id == "complex" || id == "vector" || id == "memref" || id.starts_with("!");
}

std::size_t token_end(std::string_view text, std::size_t i, tok& kind) {
  const char c = text[i];
  const char next = i + 1 < text.size() ? text[i + 1] : '\0';
  kind = tok::punct;
  if (c == '"') {
    kind = tok::string;
    return skip_string_literal(text, i);
  }
  if (c == '%' || c == '@' || c == '^') {
    kind = c == '%' ? tok::value : c == '@' ? tok::symbol : tok::label;
    if (c == '@' && next == '"') return skip_string_literal(text, i + 1);
    std::size_t k = id_end(text, i + 1, true);
    if (c == '%' && k + 1 < text.size() && text[k] == '#' && is_digit(text[k + 1]))
      for (++k; k < text.size() && is_digit(text[k]);) ++k;
    return k;
  }
  if (c == '-' && next == '>') {
    kind = tok::arrow;
    return i + 2;
  }
  if (is_digit(c) || (c == '-' && is_digit(next))) {
    kind = tok::number;
    std::size_t k = i + 1;
    while (k < text.size() && (std::isalnum(static_cast<unsigned char>(text[k])) || text[k] == '.' ||
                               ((text[k] == '+' || text[k] == '-') && (text[k - 1] == 'e' || text[k - 1] == 'E'))))
      ++k;
    return k;
  }
  if (std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '!' || c == '#') {
    kind = tok::ident;
    const std::size_t k = id_end(text, i + 1, false);
    if (k < text.size() && text[k] == '<' && names_type(text.substr(i, k - i))) {
      kind = tok::type;
      return angle_end(text, k);
    }
    return k;
  }
  return i + 1;
}

}  // namespace

std::vector<hlo_token> tokenize_stablehlo(std::string_view text) {
  std::vector<hlo_token> tokens;
  std::size_t line = 1;
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == '\n') ++line;
    if (std::isspace(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    if (text.substr(i).starts_with("//")) {
      i = std::min(text.find('\n', i), text.size());
      continue;
    }
    tok kind;
    const std::size_t end = token_end(text, i, kind);
    tokens.push_back({kind, text.substr(i, end - i), line, i, end});
    for (std::size_t k = i; k < end; ++k) line += text[k] == '\n';
    i = end;
  }
  tokens.push_back({tok::end, "", line, text.size(), text.size()});
  return tokens;
}

}  // namespace pallasbench
