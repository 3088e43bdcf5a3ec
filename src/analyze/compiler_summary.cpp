#include "pallasbench/analyze/compiler_summary.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

namespace pallasbench {
namespace {

using nlohmann::json;

constexpr std::string_view k_ptxas = "ptxas report";
constexpr std::string_view k_sass = "SASS";
constexpr std::string_view k_ptx = "PTX";
constexpr std::string_view k_thunks = "thunk sequence";

// ---------------------------------------------------------------------------------------------
// Text helpers

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = std::min(text.find('\n', start), text.size());
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::vector<std::string_view> split(std::string_view s, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == separator) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

std::optional<std::int64_t> to_int(std::string_view s) {
  s = trim(s);
  int base = 10;
  if (starts_with(s, "0x") || starts_with(s, "0X")) {
    s.remove_prefix(2);
    base = 16;
  }
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), value, base);
  if (s.empty() || error != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

// Parse errors carry the artifact and the 1-based line, so a broken capture can be found.
[[noreturn]] void fail(std::string_view artifact, std::size_t line, std::string_view what, std::string_view text) {
  const auto shown = trim(text);
  throw std::runtime_error(
      fmt::format("{} line {}: {}: '{}'", artifact, line, what,
                  shown.size() > 160 ? std::string(shown.substr(0, 157)) + "..." : std::string(shown)));
}

std::int64_t require_int(std::string_view s, std::string_view artifact, std::size_t line, std::string_view text) {
  const auto value = to_int(s);
  if (!value) fail(artifact, line, fmt::format("'{}' is not a number", trim(s)), text);
  return *value;
}

// ---------------------------------------------------------------------------------------------
// ptxas -v

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

// ---------------------------------------------------------------------------------------------
// SASS (cuobjdump -sass)

const std::set<std::string_view> k_wgmma_opcodes = {"HGMMA", "QGMMA", "IGMMA", "BGMMA", "wgmma"};
const std::set<std::string_view> k_mma_opcodes = {"HMMA", "IMMA", "DMMA", "BMMA", "mma"};

// Bytes per thread of a memory opcode from its modifiers: LDG.E.128 = 16, .64 = 8, .U16 = 2.
int sass_access_width(const std::vector<std::string_view>& modifiers) {
  for (const auto m : modifiers) {
    if (m == "256") return 32;
    if (m == "128") return 16;
    if (m == "64") return 8;
    if (m == "U16" || m == "S16") return 2;
    if (m == "U8" || m == "S8") return 1;
  }
  return 4;
}

bool count_memory(sass_function& f, std::string_view base, const std::vector<std::string_view>& modifiers) {
  const int width = sass_access_width(modifiers);
  if (base == "LDG")
    ++f.global_loads[width];
  else if (base == "STG")
    ++f.global_stores[width];
  else if (base == "LDGSTS")
    ++f.async_copies[width];
  else if (base == "LDS")
    ++f.shared_loads[width];
  else if (base == "STS")
    ++f.shared_stores[width];
  else if (base == "UTMALDG")
    ++f.tma_loads;
  else if (base == "UTMASTG")
    ++f.tma_stores;
  else if (base == "LDSM")
    ++f.ldmatrix;
  else if (base == "LDL")
    ++f.local_loads;
  else if (base == "STL")
    ++f.local_stores;
  else
    return false;
  return true;
}

void count_sass_instruction(sass_function& f, std::string_view opcode) {
  auto modifiers = split(opcode, '.');
  const auto base = modifiers.front();
  modifiers.erase(modifiers.begin());
  if (base == "NOP") return;  // alignment padding after EXIT, no work
  ++f.instructions;
  if (count_memory(f, base, modifiers)) return;
  if (k_wgmma_opcodes.contains(base) || k_mma_opcodes.contains(base))
    ++f.tensor_core_instructions[std::string(opcode)];
  else if (base == "FFMA" || base == "FFMA32I")
    ++f.ffma;
  else if (base == "FMUL" || base == "FMUL32I")
    ++f.fmul;
  else if (base == "FADD" || base == "FADD32I")
    ++f.fadd;
  else if (base == "MUFU")
    ++f.special_functions[std::string(opcode)];
}

// "/*0100*/" opens an instruction line; "/* 0x000fe2... */" (the encoding) does not.
std::optional<std::size_t> sass_address_end(std::string_view line) {
  if (!starts_with(line, "/*")) return std::nullopt;
  const auto close = line.find("*/");
  if (close == std::string_view::npos || close == 2) return std::nullopt;
  const auto address = line.substr(2, close - 2);
  if (!std::all_of(address.begin(), address.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); }))
    return std::nullopt;
  return close + 2;
}

// "HGMMA.64x64x8.F32.TF32": an upper-case mnemonic, then modifiers.
bool is_opcode(std::string_view s) {
  const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_'; };
  return !s.empty() && std::isupper(static_cast<unsigned char>(s.front())) && std::all_of(s.begin(), s.end(), word);
}

class sass_parser {
public:
  sass_listing parse(std::string_view text) {
    const auto lines = split_lines(text);
    for (m_line = 1; m_line <= lines.size(); ++m_line) read_line(trim(lines[m_line - 1]));
    return std::move(m_listing);
  }

private:
  sass_listing m_listing;
  std::set<std::string, std::less<>> m_names;
  std::size_t m_line = 0;

  void read_line(std::string_view line) {
    if (starts_with(line, "code for ") && m_listing.arch.empty()) m_listing.arch = trim(line.substr(9));
    if (starts_with(line, "Function")) return read_function(line);
    if (const auto end = sass_address_end(line)) read_instruction(line, *end);
  }

  void read_function(std::string_view line) {
    const auto colon = line.find(':');
    if (colon == std::string_view::npos || trim(line.substr(8, colon - 8)) != "") return;  // not a header
    const auto name = trim(line.substr(colon + 1));
    if (name.empty()) fail(k_sass, m_line, "'Function :' without a name", line);
    if (!m_names.emplace(name).second)
      fail(k_sass, m_line, "function listed twice (several architectures in one dump?)", line);
    m_listing.functions.emplace_back().name = name;
  }

  void read_instruction(std::string_view line, std::size_t address_end) {
    if (m_listing.functions.empty()) fail(k_sass, m_line, "instruction outside any 'Function :' section", line);
    const auto rest = line.substr(address_end);
    const auto semicolon = rest.find(';');
    if (semicolon == std::string_view::npos) fail(k_sass, m_line, "instruction without ';'", line);
    auto text = trim(rest.substr(0, semicolon));
    if (starts_with(text, "{")) text = trim(text.substr(1));  // dual-issue braces of older listings
    std::istringstream tokens{std::string(text)};
    std::string opcode;
    tokens >> opcode;
    if (opcode == "@!PT" || opcode == "@!UPT") return;  // never executes: ptxas scheduling filler
    if (starts_with(opcode, "@")) tokens >> opcode;
    if (!is_opcode(opcode)) fail(k_sass, m_line, "not a SASS instruction", line);
    count_sass_instruction(m_listing.functions.back(), opcode);
  }
};

// ---------------------------------------------------------------------------------------------
// PTX

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

// ---------------------------------------------------------------------------------------------
// XLA thunk sequence

std::optional<dim3_values> regex_dims(const std::smatch& m, std::size_t first) {
  if (!m[first].matched) return std::nullopt;
  return dim3_values{std::stoll(m[first]), std::stoll(m[first + 1]), std::stoll(m[first + 2])};
}

// "NAME grid: [256, 1, 1] threads: [128, 1, 1] [cluster: [2, 1, 1]] shared_memory: 57344 bytes"
thunk_launch custom_kernel_launch(const std::string& rest, std::size_t line, std::string_view text) {
  static const std::regex custom(
      R"(^(\S+)\s+grid:\s*\[(\d+),\s*(\d+),\s*(\d+)\]\s+threads:\s*\[(\d+),\s*(\d+),\s*(\d+)\]\s*)"
      R"((?:cluster:\s*\[(\d+),\s*(\d+),\s*(\d+)\]\s*)?shared_memory:\s*(\d+)\s+bytes\s*$)");
  std::smatch m;
  if (!std::regex_match(rest, m, custom)) fail(k_thunks, line, "unreadable kCustomKernel launch", text);
  thunk_launch launch;
  launch.kind = "kCustomKernel";
  launch.name = m[1];
  launch.grid = regex_dims(m, 2);
  launch.threads = regex_dims(m, 5);
  launch.cluster = regex_dims(m, 8);
  launch.shared_memory_bytes = std::stoll(m[11]);
  return launch;
}

std::optional<dim3_values> search_dims(const std::string& text, const std::regex& pattern) {
  std::smatch m;
  if (!std::regex_search(text, m, pattern)) return std::nullopt;
  return regex_dims(m, 1);
}

// ", kernel = NAME, launch dimensions = blocks: {64, 1, 1}, threads/block: {128, 1, 1}, ..."
thunk_launch xla_kernel_launch(const std::string& rest, std::size_t line, std::string_view text) {
  static const std::regex name(R"(kernel = ([^,\s]+))");
  static const std::regex blocks(R"((?:^|[\s\[,=])blocks?: \{(\d+), (\d+), (\d+)\})");
  static const std::regex threads(R"(threads?(?:/block)?: \{(\d+), (\d+), (\d+)\})");
  static const std::regex shared(R"(shared memory \[B\]: (\d+))");
  std::smatch m;
  if (!std::regex_search(rest, m, name)) fail(k_thunks, line, "kKernel without 'kernel = NAME'", text);
  thunk_launch launch;
  launch.kind = "kKernel";
  launch.name = m[1];
  launch.grid = search_dims(rest, blocks);
  launch.threads = search_dims(rest, threads);
  if (std::regex_search(rest, m, shared)) launch.shared_memory_bytes = std::stoll(m[1]);
  return launch;
}

// "[source | sink] " and similar annotations between the kind and the launch.
std::string drop_annotation(std::string rest) {
  if (rest.empty() || rest.front() != '[') return rest;
  const auto close = rest.find(']');
  return close == std::string::npos ? rest : std::string(trim(std::string_view(rest).substr(close + 1)));
}

// ---------------------------------------------------------------------------------------------
// The summary

struct parsed_artifacts {
  std::optional<std::vector<thunk_launch>> thunks;
  std::optional<ptxas_report> ptxas;
  std::optional<sass_listing> sass;
  std::optional<std::vector<ptx_entry>> ptx;
  json missing = json::object();  // artifact -> why it is absent
};

template <typename Parsed, typename Parser>
std::optional<Parsed> parse_artifact(const std::optional<std::string>& text, const char* key, std::string_view label,
                                     json& missing, Parser parser) {
  if (!text) {
    missing[key] = fmt::format("no {} captured", label);
    return std::nullopt;
  }
  if (trim(*text).empty()) {
    missing[key] = fmt::format("the {} is empty", label);
    return std::nullopt;
  }
  return parser(*text);
}

parsed_artifacts parse_all(const compiler_texts& texts) {
  parsed_artifacts a;
  a.thunks = parse_artifact<std::vector<thunk_launch>>(texts.thunk_sequence, "thunk_sequence", k_thunks, a.missing,
                                                       parse_thunk_sequence);
  a.ptxas = parse_artifact<ptxas_report>(texts.ptxas_report, "ptxas", k_ptxas, a.missing, parse_ptxas_report);
  a.sass = parse_artifact<sass_listing>(texts.sass, "sass", k_sass, a.missing, parse_sass);
  a.ptx = parse_artifact<std::vector<ptx_entry>>(texts.ptx, "ptx", k_ptx, a.missing, parse_ptx);
  return a;
}

json dims_json(const std::optional<dim3_values>& d) { return d ? json(*d) : json(nullptr); }
json int_json(const std::optional<std::int64_t>& v) { return v ? json(*v) : json(nullptr); }

json widths_json(const width_counts& counts) {
  json j = json::object();
  for (const auto& [bytes, n] : counts) j[std::to_string(bytes)] = n;
  return j;
}

void set_null(json& k, std::initializer_list<const char*> keys) {
  for (const auto* key : keys) k[key] = nullptr;
}

template <typename T>
const T* find_named(const std::vector<T>& items, const std::string& name) {
  const auto it = std::find_if(items.begin(), items.end(), [&](const T& item) { return item.name == name; });
  return it == items.end() ? nullptr : &*it;
}

void add_launch(json& k, json& missing, const parsed_artifacts& a, const std::string& name) {
  set_null(k, {"thunk_kind", "launches", "grid", "threads", "threads_per_block", "cluster", "shared_memory_bytes"});
  if (!a.thunks) return void(missing["thunk_sequence"] = a.missing.at("thunk_sequence"));
  const auto launches =
      std::count_if(a.thunks->begin(), a.thunks->end(), [&](const auto& t) { return t.name == name; });
  const auto* t = find_named(*a.thunks, name);
  if (!t) return void(missing["thunk_sequence"] = fmt::format("no thunk launches '{}'", name));
  k["thunk_kind"] = t->kind;
  k["launches"] = launches;
  k["grid"] = dims_json(t->grid);
  k["threads"] = dims_json(t->threads);
  if (t->threads) k["threads_per_block"] = (*t->threads)[0] * (*t->threads)[1] * (*t->threads)[2];
  k["cluster"] = dims_json(t->cluster);
  k["shared_memory_bytes"] = int_json(t->shared_memory_bytes);
}

json local_memory_use(const ptxas_function& f) {
  bool unknown = false;
  for (const auto& v : {f.stack_frame_bytes, f.spill_store_bytes, f.spill_load_bytes}) {
    if (v && *v > 0) return true;
    unknown = unknown || !v;
  }
  return unknown ? json(nullptr) : json(false);
}

std::string ptxas_absence(const ptxas_report& report, const std::string& name) {
  auto reason = fmt::format("'{}' is not an entry function of the ptxas report", name);
  if (!report.errors.empty()) reason += fmt::format(" (ptxas: {})", report.errors.front());
  return reason;
}

void add_resources(json& k, json& missing, const parsed_artifacts& a, const std::string& name) {
  set_null(k, {"registers", "barriers", "stack_frame_bytes", "spill_store_bytes", "spill_load_bytes",
               "uses_local_memory", "static_shared_memory_bytes", "constant_memory_bytes"});
  if (!a.ptxas) return void(missing["ptxas"] = a.missing.at("ptxas"));
  const auto* f = find_named(a.ptxas->functions, name);
  if (!f || !f->entry) return void(missing["ptxas"] = ptxas_absence(*a.ptxas, name));
  k["registers"] = int_json(f->registers);
  k["barriers"] = int_json(f->barriers);
  k["stack_frame_bytes"] = int_json(f->stack_frame_bytes);
  k["spill_store_bytes"] = int_json(f->spill_store_bytes);
  k["spill_load_bytes"] = int_json(f->spill_load_bytes);
  k["uses_local_memory"] = local_memory_use(*f);
  k["static_shared_memory_bytes"] = int_json(f->shared_memory_bytes);
  if (!f->constant_memory_bytes.empty()) {
    k["constant_memory_bytes"] = json::object();
    for (const auto& [bank, bytes] : f->constant_memory_bytes) k["constant_memory_bytes"][std::to_string(bank)] = bytes;
  }
}

std::optional<int> widest_load(const sass_function& f) {
  std::optional<int> widest;
  if (!f.global_loads.empty()) widest = f.global_loads.rbegin()->first;
  if (!f.async_copies.empty()) widest = std::max(widest.value_or(0), f.async_copies.rbegin()->first);
  return widest;
}

void add_instruction_mix(json& k, json& missing, const parsed_artifacts& a, const std::string& name) {
  set_null(k, {"instructions", "tensor_core", "tensor_core_instructions", "global_loads", "global_stores",
               "async_copies", "widest_global_load_bytes", "tma_loads", "tma_stores", "shared_loads", "shared_stores",
               "ldmatrix", "local_loads", "local_stores", "ffma", "fmul", "fadd", "special_functions"});
  if (!a.sass) return void(missing["sass"] = a.missing.at("sass"));
  const auto* f = find_named(a.sass->functions, name);
  if (!f) return void(missing["sass"] = fmt::format("no 'Function : {}' in the SASS", name));
  k.update(json{{"instructions", f->instructions},
                {"tensor_core", tensor_core_kind(f->tensor_core_instructions)},
                {"tensor_core_instructions", f->tensor_core_instructions},
                {"global_loads", widths_json(f->global_loads)},
                {"global_stores", widths_json(f->global_stores)},
                {"async_copies", widths_json(f->async_copies)},
                {"tma_loads", f->tma_loads},
                {"tma_stores", f->tma_stores},
                {"shared_loads", widths_json(f->shared_loads)},
                {"shared_stores", widths_json(f->shared_stores)},
                {"ldmatrix", f->ldmatrix},
                {"local_loads", f->local_loads},
                {"local_stores", f->local_stores},
                {"ffma", f->ffma},
                {"fmul", f->fmul},
                {"fadd", f->fadd},
                {"special_functions", f->special_functions}});
  if (const auto widest = widest_load(*f)) k["widest_global_load_bytes"] = *widest;
}

void add_ptx(json& k, json& missing, const parsed_artifacts& a, const std::string& name) {
  k["ptx"] = nullptr;
  if (!a.ptx) return void(missing["ptx"] = a.missing.at("ptx"));
  const auto* e = find_named(*a.ptx, name);
  if (!e) return void(missing["ptx"] = fmt::format("no .entry {} in the PTX", name));
  k["ptx"] = {{"reqntid", dims_json(e->reqntid)},
              {"maxntid", dims_json(e->maxntid)},
              {"global_loads", widths_json(e->global_loads)},
              {"global_stores", widths_json(e->global_stores)},
              {"async_copies", widths_json(e->async_copies)},
              {"tma_loads", e->tma_loads},
              {"tma_stores", e->tma_stores},
              {"tensor_core", tensor_core_kind(e->tensor_core_instructions)},
              {"tensor_core_instructions", e->tensor_core_instructions},
              {"special_functions", e->special_functions}};
}

json kernel_json(const std::string& name, const parsed_artifacts& a) {
  json k = {{"name", name}};
  json missing = json::object();
  add_launch(k, missing, a, name);
  add_resources(k, missing, a, name);
  add_instruction_mix(k, missing, a, name);
  add_ptx(k, missing, a, name);
  k["missing"] = missing;
  return k;
}

// The kCustomKernel launches of the thunk sequence, in launch order, each once.
std::vector<std::string> custom_kernel_names(const parsed_artifacts& a, json& missing) {
  std::vector<std::string> names;
  if (!a.thunks) {
    missing["kernels"] = "no kernel names given and no thunk sequence to take the kCustomKernel launches from";
    return names;
  }
  for (const auto& t : *a.thunks)
    if (t.kind == "kCustomKernel" && std::find(names.begin(), names.end(), t.name) == names.end())
      names.push_back(t.name);
  if (names.empty()) missing["kernels"] = "the thunk sequence launches no kCustomKernel";
  return names;
}

json strongest_tensor_core(const json& kernels) {
  static const std::vector<std::string> order = {"none", "mma", "wgmma"};
  int best = -1;
  for (const auto& k : kernels) {
    if (!k["tensor_core"].is_string()) continue;
    const auto it = std::find(order.begin(), order.end(), k["tensor_core"].get<std::string>());
    if (it != order.end()) best = std::max(best, static_cast<int>(it - order.begin()));
  }
  return best < 0 ? json(nullptr) : json(order[best]);
}

json max_registers(const json& kernels) {
  json best = nullptr;
  for (const auto& k : kernels)
    if (k["registers"].is_number() && (best.is_null() || k["registers"] > best)) best = k["registers"];
  return best;
}

json any_spills(const json& kernels) {
  if (kernels.empty()) return nullptr;
  bool unknown = false;
  for (const auto& k : kernels) {
    for (const auto* key : {"spill_store_bytes", "spill_load_bytes"}) {
      if (k[key].is_number() && k[key].get<std::int64_t>() > 0) return true;
      unknown = unknown || !k[key].is_number();
    }
  }
  return unknown ? json(nullptr) : json(false);
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("cannot read {}", path.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

ptxas_report parse_ptxas_report(std::string_view text) { return ptxas_parser().parse(text); }

sass_listing parse_sass(std::string_view text) { return sass_parser().parse(text); }

std::vector<ptx_entry> parse_ptx(std::string_view text) { return ptx_parser().parse(text); }

std::vector<thunk_launch> parse_thunk_sequence(std::string_view text) {
  static const std::regex thunk(R"(^\s*(\d+):\s+(k[A-Za-z0-9_]+)\s*(.*?)\s*$)");
  std::vector<thunk_launch> launches;
  const auto lines = split_lines(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string line(lines[i]);
    std::smatch m;
    if (!std::regex_match(line, m, thunk)) continue;  // nested sequences' headers, multi-line thunks
    const auto rest = drop_annotation(m[3]);
    if (m[2] == "kCustomKernel")
      launches.push_back(custom_kernel_launch(rest, i + 1, line));
    else if (m[2] == "kKernel")
      launches.push_back(xla_kernel_launch(rest, i + 1, line));
    else
      launches.emplace_back().kind = m[2];
  }
  return launches;
}

std::string tensor_core_kind(const std::map<std::string, std::int64_t>& instructions) {
  std::string kind = "none";
  for (const auto& [opcode, n] : instructions) {
    const auto base = std::string_view(opcode).substr(0, opcode.find('.'));
    if (n > 0 && k_wgmma_opcodes.contains(base)) return "wgmma";
    if (n > 0 && k_mma_opcodes.contains(base)) kind = "mma";
  }
  return kind;
}

json summarize_compiler_output(const compiler_texts& texts,
                               const std::optional<std::vector<std::string>>& kernel_names) {
  const auto a = parse_all(texts);
  json missing = a.missing;
  std::vector<std::string> names;
  if (kernel_names) {
    for (const auto& n : *kernel_names)
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  } else {
    names = custom_kernel_names(a, missing);
  }
  json kernels = json::array();
  for (const auto& name : names) kernels.push_back(kernel_json(name, a));
  return {{"summary_version", 1},
          {"selected_by", kernel_names ? "given" : "thunk_sequence"},
          {"sass_arch", a.sass && !a.sass->arch.empty() ? json(a.sass->arch) : json(nullptr)},
          {"kernels", kernels},
          {"tensor_core", strongest_tensor_core(kernels)},
          {"max_registers", max_registers(kernels)},
          {"spills", any_spills(kernels)},
          {"missing", missing}};
}

compiler_texts read_compiler_texts(const std::filesystem::path& folder) {
  const auto text = [&](const char* file) -> std::optional<std::string> {
    const auto path = folder / file;
    if (!std::filesystem::exists(path)) return std::nullopt;
    return read_file(path);
  };
  return {text("kernel.ptx"), text("ptxas.txt"), text("kernel.sass"), text("thunk_sequence.txt")};
}

}  // namespace pallasbench
