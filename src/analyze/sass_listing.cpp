#include "pallasbench/analyze/sass_listing.hpp"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <functional>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include "detail/text.hpp"

namespace pallasbench {
namespace {

using detail::fail;
using detail::k_sass;
using detail::split;
using detail::split_lines;
using detail::starts_with;
using detail::trim;

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

}  // namespace

sass_listing parse_sass(std::string_view text) { return sass_parser().parse(text); }

std::string tensor_core_kind(const std::map<std::string, std::int64_t>& instructions) {
  std::string kind = "none";
  for (const auto& [opcode, n] : instructions) {
    const auto base = std::string_view(opcode).substr(0, opcode.find('.'));
    if (n > 0 && k_wgmma_opcodes.contains(base)) return "wgmma";
    if (n > 0 && k_mma_opcodes.contains(base)) kind = "mma";
  }
  return kind;
}

}  // namespace pallasbench
