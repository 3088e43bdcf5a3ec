// One kernel's entry of the compiler summary (the "kernels" items of compiler_summary.hpp's
// schema), from the parsed artifacts of its module.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pallasbench/analyze/ptx_entries.hpp"
#include "pallasbench/analyze/ptxas_report.hpp"
#include "pallasbench/analyze/sass_listing.hpp"
#include "pallasbench/analyze/thunk_sequence.hpp"

namespace pallasbench::detail {

// The module's artifacts, each parsed or absent with its reason in missing, under the artifact's
// key ("thunk_sequence", "ptxas", "sass", "ptx").
struct parsed_artifacts {
  std::optional<std::vector<thunk_launch>> thunks;
  std::optional<ptxas_report> ptxas;
  std::optional<sass_listing> sass;
  std::optional<std::vector<ptx_entry>> ptx;
  nlohmann::json missing = nlohmann::json::object();  // artifact -> why it is absent
};

// Every field of the kernel entry point `name`; those an artifact lacks are null, with the reason
// under the artifact's key in the entry's "missing".
[[nodiscard]] nlohmann::json kernel_json(const std::string& name, const parsed_artifacts& a);

}  // namespace pallasbench::detail
