#include "pallasbench/analyze/compiler_summary.hpp"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "detail/kernel_summary.hpp"
#include "detail/text.hpp"
#include "pallasbench/analyze/ptx_entries.hpp"
#include "pallasbench/analyze/ptxas_report.hpp"
#include "pallasbench/analyze/sass_listing.hpp"
#include "pallasbench/analyze/thunk_sequence.hpp"

namespace pallasbench {
namespace {

using detail::k_ptx;
using detail::k_ptxas;
using detail::k_sass;
using detail::k_thunks;
using detail::kernel_json;
using detail::parsed_artifacts;
using detail::trim;
using nlohmann::json;

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
