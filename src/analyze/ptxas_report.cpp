#include "pallasbench/analyze/ptxas_report.hpp"

#include <cstddef>
#include <functional>
#include <map>
#include <regex>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "detail/text.hpp"

namespace pallasbench {
namespace {

using detail::fail;
using detail::k_ptxas;
using detail::split;
using detail::split_lines;
using detail::starts_with;
using detail::trim;

bool apply_bytes_clause(ptxas_function& f, std::int64_t bytes, const std::string& what) {
  static const std::regex cmem(R"(^cmem\[(\d{1,9})\]$)");
  std::smatch m;
  if (what == "stack frame")
    f.stack_frame_bytes = bytes;
  else if (what == "spill stores")
    f.spill_store_bytes = bytes;
  else if (what == "spill loads")
    f.spill_load_bytes = bytes;
  else if (what == "smem")
    f.shared_memory_bytes = bytes;
  else if (std::regex_match(what, m, cmem))
    f.constant_memory_bytes[std::stoi(m[1])] = bytes;
  // Other quantities ("cumulative stack size", "lmem", "textures") are read but not summarised.
  return true;
}

// One comma-separated clause of a resource line: "Used 95 registers", "used 1 barriers",
// "57344 bytes smem", "388 bytes cmem[0]", "0 bytes spill stores". False: not a clause. At most
// 18 digits, so std::stoll cannot overflow: a longer number is an unreadable clause.
bool apply_clause(ptxas_function& f, const std::string& clause) {
  static const std::regex registers(R"(^[Uu]sed (\d{1,18}) registers$)");
  static const std::regex barriers(R"(^[Uu]sed (\d{1,18}) barriers$)");
  static const std::regex bytes(R"(^(\d{1,18}) bytes (\S.*)$)");
  static const std::regex counted(R"(^(\d{1,18}) [A-Za-z][A-Za-z ]*$)");
  std::smatch m;
  if (std::regex_match(clause, m, registers))
    f.registers = std::stoll(m[1]);
  else if (std::regex_match(clause, m, barriers))
    f.barriers = std::stoll(m[1]);
  else if (std::regex_match(clause, m, bytes))
    return apply_bytes_clause(f, std::stoll(m[1]), m[2]);
  else
    return std::regex_match(clause, counted);
  return true;
}

class ptxas_parser {
public:
  ptxas_report parse(std::string_view text) {
    const auto lines = split_lines(text);
    for (m_line = 1; m_line <= lines.size(); ++m_line) read_line(lines[m_line - 1]);
    return std::move(m_report);
  }

private:
  ptxas_report m_report;
  std::map<std::string, std::size_t, std::less<>> m_index;
  std::optional<std::size_t> m_properties;  // the latest "Function properties for X"
  std::optional<std::size_t> m_compiling;   // the entry of the latest "Compiling entry function"
  std::size_t m_line = 0;

  std::size_t function(std::string_view name) {
    if (const auto it = m_index.find(name); it != m_index.end()) return it->second;
    m_report.functions.emplace_back().name = name;
    m_index.emplace(std::string(name), m_report.functions.size() - 1);
    return m_report.functions.size() - 1;
  }

  void read_line(std::string_view raw) {
    const auto line = trim(raw);
    if (line.empty()) return;
    if (starts_with(line, "ptxas")) return read_message(line);
    // Indented lines carry the properties of the function named just above.
    if (raw.front() != ' ' && raw.front() != '\t') fail(k_ptxas, m_line, "not a ptxas line", raw);
    if (!m_properties) fail(k_ptxas, m_line, "properties before any 'Function properties for'", raw);
    read_clauses(m_report.functions[*m_properties], line, raw);
  }

  void read_message(std::string_view line) {
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) fail(k_ptxas, m_line, "no ':' after 'ptxas <severity>'", line);
    const auto severity = trim(line.substr(5, colon - 5));
    const auto message = trim(line.substr(colon + 1));
    if (severity == "error" || severity == "fatal") m_report.errors.emplace_back(message);
    if (severity == "info") read_info(message, line);
  }

  void read_info(std::string_view message, std::string_view line) {
    static const std::regex compiling(R"(^Compiling entry function '([^']+)' for '([^']+)'$)");
    constexpr std::string_view properties = "Function properties for ";
    if (starts_with(message, "Compiling entry function")) {
      std::match_results<std::string_view::const_iterator> m;
      if (!std::regex_match(message.begin(), message.end(), m, compiling))
        fail(k_ptxas, m_line, "unreadable 'Compiling entry function'", line);
      const auto index = function(m[1].str());
      if (m_report.functions[index].entry)
        fail(k_ptxas, m_line, "entry compiled twice (several architectures in one report?)", line);
      m_report.functions[index].entry = true;
      m_compiling = index;
    } else if (starts_with(message, properties)) {
      const auto name = trim(message.substr(properties.size()));
      if (name.empty()) fail(k_ptxas, m_line, "'Function properties for' without a name", line);
      m_properties = function(name);
    } else if (starts_with(message, "Used ")) {
      read_resources(message, line);
    }
  }

  // "Used N registers, ..." belongs to the entry being compiled; reports without "Compiling entry
  // function" lines give it to the function whose properties came last.
  void read_resources(std::string_view message, std::string_view line) {
    const auto target = m_compiling ? m_compiling : m_properties;
    if (!target) fail(k_ptxas, m_line, "resource usage before any function", line);
    auto& f = m_report.functions[*target];
    f.entry = true;
    read_clauses(f, message, line);
    m_compiling.reset();
  }

  void read_clauses(ptxas_function& f, std::string_view list, std::string_view line) {
    for (const auto clause : split(list, ',')) {
      if (!apply_clause(f, std::string(trim(clause))))
        fail(k_ptxas, m_line, fmt::format("unreadable clause '{}'", trim(clause)), line);
    }
  }
};

}  // namespace

ptxas_report parse_ptxas_report(std::string_view text) { return ptxas_parser().parse(text); }

}  // namespace pallasbench
