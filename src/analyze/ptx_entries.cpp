#include "pallasbench/analyze/ptx_entries.hpp"

#include <algorithm>
#include <cstddef>
#include <regex>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "detail/text.hpp"

namespace pallasbench {
namespace {

using detail::fail;
using detail::k_ptx;
using detail::require_int;
using detail::split;
using detail::split_lines;
using detail::starts_with;
using detail::trim;

const std::set<std::string_view> k_ptx_special = {"ex2", "lg2", "rsqrt", "sqrt", "rcp", "sin", "cos", "tanh"};

// Operands split at top-level commas (not inside [] or {}).
std::vector<std::string_view> ptx_operands(std::string_view s) {
  std::vector<std::string_view> operands;
  int nesting = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '[' || s[i] == '{') ++nesting;
    if (s[i] == ']' || s[i] == '}') --nesting;
    if (s[i] == ',' && nesting == 0) {
      operands.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  operands.push_back(trim(s.substr(start)));
  return operands;
}

std::optional<int> ptx_type_bytes(std::string_view type) {
  static const std::regex scalar(R"(^[bsuf](8|16|32|64|128)$)");
  std::match_results<std::string_view::const_iterator> m;
  if (!std::regex_match(type.begin(), type.end(), m, scalar)) return std::nullopt;
  return std::stoi(m[1]) / 8;
}

bool has_part(const std::vector<std::string_view>& parts, std::string_view part) {
  return std::find(parts.begin(), parts.end(), part) != parts.end();
}

class ptx_parser {
public:
  std::vector<ptx_entry> parse(std::string_view text) {
    const auto lines = split_lines(text);
    for (m_line = 1; m_line <= lines.size(); ++m_line) read_line(lines[m_line - 1]);
    if (m_entry) fail(k_ptx, m_entry_line, fmt::format(".entry {} is not closed", m_entry->name), ".entry");
    return std::move(m_entries);
  }

private:
  std::vector<ptx_entry> m_entries;
  std::optional<ptx_entry> m_entry;  // the entry whose header or body is being read
  bool m_in_body = false;
  int m_depth = 0;
  std::size_t m_line = 0, m_entry_line = 0;

  void read_line(std::string_view raw) {
    auto line = trim(raw.substr(0, raw.find("//")));
    if (!m_entry) line = open_entry(line);
    if (!m_entry || line.empty()) return;
    if (!m_in_body) return read_header(line);
    read_body(line);
  }

  // Starts an entry at ".entry NAME(" and returns what follows the name.
  std::string_view open_entry(std::string_view line) {
    static const std::regex entry(R"(^(?:\.(?:visible|weak|extern)\s+)*\.entry\s+([A-Za-z_$%][\w$%]*))");
    std::match_results<std::string_view::const_iterator> m;
    if (line.find(".entry") == std::string_view::npos) return line;
    if (!std::regex_search(line.begin(), line.end(), m, entry)) fail(k_ptx, m_line, "unreadable .entry", line);
    m_entry.emplace().name = m[1].str();
    m_entry_line = m_line;
    m_in_body = false;
    return line.substr(m.length(0));
  }

  void read_header(std::string_view line) {
    read_launch_bounds(line);
    const auto brace = line.find('{');
    if (brace == std::string_view::npos) {
      if (line.find(';') != std::string_view::npos) m_entry.reset();  // a declaration, no body
      return;
    }
    m_in_body = true;
    m_depth = 0;
    read_body(line.substr(brace));
  }

  void read_launch_bounds(std::string_view line) {
    static const std::regex bound(R"(\.(reqntid|maxntid)\s+([^;{]*))");
    std::match_results<std::string_view::const_iterator> m;
    if (!std::regex_search(line.begin(), line.end(), m, bound)) return;
    const std::string list = m[2].str();
    const auto values = split(trim(list), ',');
    if (values.empty() || values.size() > 3) fail(k_ptx, m_line, "unreadable launch bound", line);
    dim3_values dims{1, 1, 1};
    for (std::size_t i = 0; i < values.size(); ++i) dims[i] = require_int(values[i], k_ptx, m_line, line);
    (m[1] == "reqntid" ? m_entry->reqntid : m_entry->maxntid) = dims;
  }

  void read_body(std::string_view line) {
    m_depth += static_cast<int>(std::count(line.begin(), line.end(), '{'));
    m_depth -= static_cast<int>(std::count(line.begin(), line.end(), '}'));
    read_instruction(line);
    if (m_depth < 0) fail(k_ptx, m_line, "unbalanced '}'", line);
    if (m_depth > 0) return;
    m_entries.push_back(std::move(*m_entry));
    m_entry.reset();
  }

  void read_instruction(std::string_view line) {
    if (line.empty() || line.front() == '.' || line.front() == '{' || line.front() == '}' || line.back() == ':') return;
    if (line.front() == '@') line = trim(line.substr(std::min(line.find_first_of(" \t"), line.size())));
    const auto end = std::min(line.find_first_of(" \t;"), line.size());
    const auto opcode = line.substr(0, end);
    auto operands = line.substr(end);
    operands = trim(operands.substr(0, operands.rfind(';')));
    count_ptx_instruction(opcode, operands, line);
  }

  void count_ptx_instruction(std::string_view opcode, std::string_view operands, std::string_view line) {
    const auto parts = split(opcode, '.');
    const auto root = parts.front();
    auto& e = *m_entry;
    if ((root == "ld" || root == "st") && has_part(parts, "global"))
      ++(root == "ld" ? e.global_loads : e.global_stores)[access_width(parts, line)];
    else if (starts_with(opcode, "cp.async.bulk.tensor."))
      ++(tma_is_load(parts) ? e.tma_loads : e.tma_stores);
    else if (starts_with(opcode, "cp.reduce.async.bulk.tensor."))
      ++e.tma_stores;
    else if (starts_with(opcode, "cp.async.") && !has_part(parts, "bulk") && has_part(parts, "global"))
      ++e.async_copies[copy_size(operands, line)];
    else if (starts_with(opcode, "wgmma.mma_async") || root == "mma")
      ++e.tensor_core_instructions[std::string(opcode)];
    else if (k_ptx_special.contains(root))
      ++e.special_functions[std::string(root)];
  }

  // ld.global.v4.b32 -> 16: the vector count times the element type's bytes.
  int access_width(const std::vector<std::string_view>& parts, std::string_view line) const {
    int count = 1;
    for (const auto p : parts)
      if (p == "v2" || p == "v4" || p == "v8") count = p[1] - '0';
    const auto bytes = ptx_type_bytes(parts.back());
    if (!bytes) fail(k_ptx, m_line, fmt::format("unknown type '.{}'", parts.back()), line);
    return count * *bytes;
  }

  // cp.async.cg.shared.global [dst], [src], 16 -> 16: the third operand is the copy size.
  int copy_size(std::string_view operands, std::string_view line) const {
    const auto list = ptx_operands(operands);
    if (list.size() < 3) fail(k_ptx, m_line, "cp.async without a copy size", line);
    return static_cast<int>(require_int(list[2], k_ptx, m_line, line));
  }

  // cp.async.bulk.tensor.2d.shared::cluster.global...: the destination's state space comes first.
  static bool tma_is_load(const std::vector<std::string_view>& parts) {
    for (const auto p : parts) {
      if (p == "global") return false;
      if (starts_with(p, "shared")) return true;
    }
    return false;
  }
};

}  // namespace

std::vector<ptx_entry> parse_ptx(std::string_view text) { return ptx_parser().parse(text); }

}  // namespace pallasbench
