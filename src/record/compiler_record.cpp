#include "pallasbench/record/compiler_record.hpp"

#include "pallasbench/core/error.hpp"

#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "pallasbench/analyze/compiler_summary.hpp"

namespace pallasbench {
namespace {

using nlohmann::json;

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw error(fmt::format("cannot read compiler artifact {}", path.string()));
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

json triton_ir_json(const json& modules) {
  json out = json::array();
  for (const auto& m : modules)
    out.push_back(
        {{"name", m.value("name", json(nullptr))},
         {"custom_call", m.value("target", json(nullptr))},
         {"num_warps", m.value("num_warps", json(nullptr))},
         {"num_stages", m.value("num_stages", json(nullptr))},
         {"grid",
          {m.value("grid_x", json(nullptr)), m.value("grid_y", json(nullptr)), m.value("grid_z", json(nullptr))}},
         {"ir", m.value("ir", json(nullptr))}});
  return out;
}

json summary_of(const std::map<std::string, std::string>& texts, const json& captured, json& out) {
  auto text = [&](const char* key) -> std::optional<std::string> {
    const auto it = texts.find(key);
    return it == texts.end() ? std::nullopt : std::optional(it->second);
  };
  const auto names = captured.value("kernel_names", std::vector<std::string>{});
  try {
    return summarize_compiler_output({text("ptx"), text("ptxas"), text("sass"), text("thunk_sequence")},
                                     names.empty() ? std::nullopt : std::optional(names));
  } catch (const std::exception& e) {  // unreadable compiler output is a gap in the record, not a failed kernel
    out["summary_error"] = e.what();
    return nullptr;
  }
}

}  // namespace

json compiler_record(const json& captured, const std::filesystem::path& records_dir,
                     const std::filesystem::path& relative_dir) {
  const std::string mode = captured.value("mode", "none");
  json out = {{"mode", mode},     {"triton_ir", nullptr},      {"ptx", nullptr},        {"sass", nullptr},
              {"ptxas", nullptr}, {"thunk_sequence", nullptr}, {"pass_trail", nullptr}, {"summary", nullptr}};
  if (mode == "none" || captured.contains("artifacts_unavailable")) {
    out["artifacts_unavailable"] =
        mode == "none" ? json("not captured (--artifacts none)") : captured["artifacts_unavailable"];
    return out;
  }
  const std::filesystem::path dir = captured.at("dir").get<std::string>();
  out["triton_ir"] = triton_ir_json(captured.value("triton", json::array()));
  out["unavailable"] = captured.value("unavailable", json::object());
  out["capture_s"] = captured.value("capture_s", json(nullptr));
  out["capture_compile_s"] = captured.value("capture_compile_s", json(nullptr));  // background, off the timed compile
  out["tools_s"] = captured.value("tools_s", json(nullptr));
  out["wait_s"] = captured.value("wait_s", json(nullptr));  // how long the checks' end waited for it
  std::map<std::string, std::string> texts;
  for (const char* key : {"ptx", "sass", "ptxas", "thunk_sequence", "pass_trail"})
    if (captured.contains(key) && captured[key].is_string())
      texts[key] = read_text(dir / captured[key].get<std::string>());
  out["summary"] = summary_of(texts, captured, out);
  if (texts.contains("thunk_sequence")) out["thunk_sequence"] = texts["thunk_sequence"];  // a few lines
  for (const char* key : {"ptx", "sass", "ptxas", "pass_trail"}) {
    if (!texts.contains(key)) continue;
    if (records_dir.empty()) {  // inline: the same object as in files mode, text in place of path
      out[key] = {{"text", texts[key]}, {"bytes", texts[key].size()}};
      continue;
    }
    const auto relative = relative_dir / captured[key].get<std::string>();
    std::filesystem::create_directories(records_dir / relative_dir);
    std::filesystem::copy_file(dir / captured[key].get<std::string>(), records_dir / relative,
                               std::filesystem::copy_options::overwrite_existing);
    out[key] = {{"path", relative.string()}, {"bytes", texts[key].size()}};
  }
  return out;
}

}  // namespace pallasbench
