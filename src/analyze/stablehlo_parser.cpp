// parse_stablehlo: the grammar over the tokens of stablehlo_text.cpp.
#include "pallasbench/analyze/stablehlo_text.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace pallasbench {
namespace {

using tok = hlo_token_kind;

std::string symbol_name(std::string_view symbol) {
  symbol.remove_prefix(1);
  if (symbol.size() >= 2 && symbol.front() == '"') symbol = symbol.substr(1, symbol.size() - 2);
  return std::string(symbol);
}

// The symbol or string after "key = " in an op's attribute text ("" when absent).
std::string attribute_name(std::string_view text, std::string_view key) {
  const std::string pattern = std::string(key) + " = ";
  const std::size_t at = text.find(pattern);
  if (at == std::string_view::npos) return "";
  const std::size_t begin = at + pattern.size();
  if (begin < text.size() && text[begin] == '"')
    return std::string(text.substr(begin + 1, skip_string_literal(text, begin) - begin - 2));
  if (begin < text.size() && text[begin] == '@' && begin + 1 < text.size() && text[begin + 1] == '"')
    return symbol_name(text.substr(begin, skip_string_literal(text, begin + 1) - begin));
  std::size_t end = begin + 1;
  while (end < text.size() && text[end] != ',' && text[end] != '}' && text[end] != '>' && text[end] != ' ') ++end;
  return begin < text.size() && text[begin] == '@' ? symbol_name(text.substr(begin, end - begin)) : "";
}

bool is_opener(const hlo_token& t) { return t.is('(') || t.is('[') || t.is('<') || t.is('{'); }
bool is_closer(const hlo_token& t) { return t.is(')') || t.is(']') || t.is('>') || t.is('}'); }

// Recursive descent over the tokens. MLIR prints one op per line, regions on the lines that
// follow their '{': so an op's custom (pretty) form ends at the line break, unless the next line
// continues it with a bare keyword ("cond {", "do {", "reducer(...) {").
class parser {
public:
  explicit parser(std::string_view text) : m_text(text), m_tokens(tokenize_stablehlo(text)) {}

  hlo_module parse_module() {
    hlo_module module;
    skip_aliases();
    const bool wrapped = peek().text == "module";
    if (wrapped) {
      advance();
      if (peek().kind == tok::symbol) advance();
      if (accept_word("attributes")) skip_balanced();
      expect('{', "opening the module");
    }
    while (peek().kind != tok::end && !(wrapped && peek().is('}'))) {
      if (peek().text != "func.func") {
        (void)parse_op();  // other module-level ops (sdy.mesh, ...): no work of their own
        continue;
      }
      const std::size_t line = peek().line;
      hlo_function fn = parse_function();
      const std::string name = fn.name;
      if (!module.functions.emplace(name, std::move(fn)).second)
        throw module_parse_error(line, fmt::format("function @{} defined twice", name));
    }
    if (wrapped) expect('}', "closing the module");
    skip_aliases();
    if (peek().kind != tok::end) fail("the end of the text after the module");
    return module;
  }

private:
  std::string_view m_text;
  std::vector<hlo_token> m_tokens;
  std::size_t m_pos = 0;

  [[nodiscard]] const hlo_token& peek(std::size_t k = 0) const {
    return m_tokens[std::min(m_pos + k, m_tokens.size() - 1)];
  }
  const hlo_token& advance() {
    const hlo_token& t = peek();
    m_pos = std::min(m_pos + 1, m_tokens.size() - 1);
    return t;
  }
  [[nodiscard]] const hlo_token& previous() const { return m_tokens[m_pos == 0 ? 0 : m_pos - 1]; }
  [[noreturn]] void fail(std::string_view expected) const {
    const hlo_token& t = peek();
    throw module_parse_error(t.line, t.kind == tok::end
                                         ? fmt::format("expected {}, found the end of the text", expected)
                                         : fmt::format("expected {}, found '{}'", expected, t.text));
  }
  void expect(char c, std::string_view why) {
    if (!peek().is(c)) fail(fmt::format("'{}' {}", c, why));
    advance();
  }
  bool accept(char c) { return peek().is(c) && (advance(), true); }
  bool accept_word(std::string_view word) { return peek().text == word && (advance(), true); }
  // A '{' that ends its line opens a region; one followed on its line is an attribute dictionary.
  [[nodiscard]] bool region_opens() const { return peek().is('{') && peek(1).line > peek().line; }

  // Attribute and type alias definitions (#map = ..., !t = ...) outside the module, line by line.
  void skip_aliases() {
    while (peek().kind == tok::ident && (peek().text.starts_with("#") || peek().text.starts_with("!"))) {
      const std::size_t line = peek().line;
      while (peek().kind != tok::end && peek().line == line) advance();
    }
  }

  void skip_balanced() {
    int depth = 0;
    do {
      if (peek().kind == tok::end) fail("a closing bracket");
      depth += is_opener(peek()) ? 1 : is_closer(peek()) ? -1 : 0;
      advance();
    } while (depth > 0);
  }

  hlo_type parse_one_type() {
    if (peek().kind != tok::type && peek().kind != tok::ident) fail("a type");
    const hlo_token& t = advance();
    return parse_type(t.text, t.line);
  }

  std::vector<hlo_type> parse_type_list() {
    std::vector<hlo_type> types;
    expect('(', "opening a type list");
    while (!accept(')')) {
      types.push_back(parse_one_type());
      if (peek().is('{')) skip_balanced();  // result attributes of a function
      if (!peek().is(')')) expect(',', "between types");
    }
    return types;
  }

  hlo_function parse_function() {
    hlo_function fn;
    fn.line = advance().line;
    if (peek().text == "public" || peek().text == "private" || peek().text == "nested") advance();
    if (peek().kind != tok::symbol) fail("a function name");
    fn.name = symbol_name(advance().text);
    expect('(', "opening the arguments");
    while (!accept(')')) {
      if (peek().kind != tok::value) fail("a function argument");
      fn.args.emplace_back(advance().text);
      expect(':', "after an argument");
      fn.arg_types.push_back(parse_one_type());
      if (peek().is('{')) skip_balanced();
      if (!peek().is(')')) expect(',', "between arguments");
    }
    if (peek().kind == tok::arrow) {
      advance();
      if (peek().is('('))
        fn.result_types = parse_type_list();
      else
        fn.result_types.push_back(parse_one_type());
    }
    if (accept_word("attributes")) skip_balanced();
    if (!peek().is('{')) fail(fmt::format("the body of @{} (declarations are not followed)", fn.name));
    fn.body = parse_region();
    return fn;
  }

  hlo_region parse_region() {
    const std::size_t line = peek().line;
    expect('{', "opening a region");
    hlo_region region;
    while (!accept('}')) {
      if (peek().kind == tok::end) fail(fmt::format("'}}' closing the region opened on line {}", line));
      if (peek().kind != tok::label) {
        region.ops.push_back(parse_op());
        continue;
      }
      advance();
      if (accept('(')) {
        while (!accept(')')) {
          if (peek().kind != tok::value) fail("a block argument");
          region.args.emplace_back(advance().text);
          expect(':', "after a block argument");
          (void)parse_one_type();
          if (!peek().is(')')) expect(',', "between block arguments");
        }
      }
      expect(':', "after a block label");
    }
    return region;
  }

  hlo_op parse_op() {
    hlo_op op;
    op.line = peek().line;
    if (peek().kind == tok::value) parse_results(op);
    if (peek().kind == tok::string)
      parse_generic(op);
    else if (peek().kind == tok::ident)
      parse_pretty(op);
    else
      fail("an operation");
    // Every result needs its type: an op whose size is unknown would go uncounted.
    if (op.result_types.size() != op.results.size())
      throw module_parse_error(op.line, fmt::format("{}: {} results but {} result types", op.name, op.results.size(),
                                                    op.result_types.size()));
    return op;
  }

  void parse_results(hlo_op& op) {
    do {
      if (peek().kind != tok::value) fail("a result name");
      const std::string name(advance().text);
      std::size_t count = 1;
      bool group = false;
      if (accept(':')) {
        if (peek().kind != tok::number) fail("a result count");
        count = std::stoul(std::string(advance().text));
        group = count != 1;
      }
      for (std::size_t i = 0; i < count; ++i) op.results.push_back(group ? fmt::format("{}#{}", name, i) : name);
    } while (accept(','));
    expect('=', "after the results");
  }

  void append_text(hlo_op& op, std::size_t begin, std::size_t end) {
    if (!op.text.empty()) op.text += ' ';
    op.text += m_text.substr(begin, end - begin);
  }

  void parse_generic(hlo_op& op) {
    const hlo_token& name = advance();
    op.name = std::string(name.text.substr(1, name.text.size() - 2));
    std::size_t segment = name.begin;
    expect('(', "opening the operands");
    while (!accept(')')) {
      if (peek().kind != tok::value) fail("an operand");
      op.operands.emplace_back(advance().text);
      if (!peek().is(')')) expect(',', "between operands");
    }
    if (peek().is('[')) skip_balanced();  // successors
    if (peek().is('<')) skip_balanced();  // properties
    if (peek().is('(') && peek(1).is('{')) {
      append_text(op, segment, peek().begin);
      advance();
      do op.regions.push_back(parse_region());
      while (accept(','));
      segment = peek().begin;
      expect(')', "closing the regions");
    }
    if (peek().is('{')) skip_balanced();
    append_text(op, segment, peek().begin);
    expect(':', "before the operation's type");
    parse_signature(op);
    if (op.name == "stablehlo.custom_call") op.callee = attribute_name(op.text, "call_target_name");
    if (op.name == "stablehlo.composite") op.callee = attribute_name(op.text, "decomposition");
    if (op.name == "func.call" || op.name == "call") op.callee = attribute_name(op.text, "callee");
  }

  [[nodiscard]] bool continues_op(const hlo_token& t) const {
    return t.kind == tok::ident && t.text.find('.') == std::string_view::npos && t.text != "return" && t.text != "call";
  }

  void parse_pretty(hlo_op& op) {
    const hlo_token& name = advance();
    op.name = std::string(name.text);
    std::size_t segment = name.begin, end = name.end, line = name.line;
    std::vector<std::string> iter_args, block_args;
    std::string first_symbol;
    for (int depth = 0;;) {
      const hlo_token& t = peek();
      if (t.kind == tok::end || (depth == 0 && (t.is('}') || (t.line != line && !continues_op(t))))) break;
      if (region_opens()) {
        append_text(op, segment, t.begin);
        op.regions.push_back(parse_region());
        op.regions.back().args = iter_args;
        op.regions.back().args.insert(op.regions.back().args.end(), block_args.begin(), block_args.end());
        block_args.clear();
        segment = end = previous().end;
        line = previous().line;
        continue;
      }
      advance();
      if (depth == 0 && t.is(':')) {
        parse_signature(op);
      } else if (is_opener(t) || is_closer(t)) {
        depth += is_opener(t) ? 1 : -1;
        if (depth < 0) throw module_parse_error(t.line, fmt::format("unbalanced '{}'", t.text));
      } else if (t.kind == tok::value) {
        // "%iterArg = %init" names a loop-carried value; "%arg: type" in parentheses a block argument.
        auto& list = peek().is('=') ? iter_args : depth > 0 && peek().is(':') ? block_args : op.operands;
        list.emplace_back(t.text);
      } else if (t.kind == tok::symbol && first_symbol.empty()) {
        first_symbol = symbol_name(t.text);
      }
      end = previous().end;
      line = previous().line;
    }
    append_text(op, segment, end);
    // custom_call @target(...), call @f(...); a composite names its decomposition among its attributes.
    op.callee = op.name == "stablehlo.composite" ? attribute_name(op.text, "decomposition") : first_symbol;
  }

  // After ':': "(types) -> type-or-(types)", or a list of types (the results are its last ones).
  void parse_signature(hlo_op& op) {
    const std::size_t line = previous().line;
    std::vector<hlo_type> list;
    if (peek().is('(')) {
      list = parse_type_list();
    } else {
      do list.push_back(parse_one_type());
      while (accept(','));
    }
    if (peek().kind == tok::arrow) {
      advance();
      op.operand_types = std::move(list);
      if (peek().is('('))
        op.result_types = parse_type_list();
      else
        op.result_types.push_back(parse_one_type());
    } else {
      if (list.size() < op.results.size())
        throw module_parse_error(line, fmt::format("{} results but {} types", op.results.size(), list.size()));
      op.result_types.assign(list.end() - static_cast<std::ptrdiff_t>(op.results.size()), list.end());
      op.operand_types = std::move(list);
    }
  }
};

}  // namespace

hlo_module parse_stablehlo(std::string_view text) { return parser(text).parse_module(); }

}  // namespace pallasbench
