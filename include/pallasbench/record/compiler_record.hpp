// The record's `artifacts` from what the worker captured of a compile (Triton IR, PTX, SASS,
// ptxas report, thunk sequence, pass trail), with the static summary parsed from them.
#pragma once

#include <filesystem>

#include <nlohmann/json.hpp>

namespace pallasbench {

// `captured`: the worker's reply (its files under captured["dir"]). With a non-empty
// `records_dir`, PTX, SASS, the ptxas report and the pass trail are copied to
// records_dir/relative_dir and the record holds {path (relative to records_dir), bytes}; with an
// empty one they are inline. Triton IR, thunk sequence and summary are always inline. A summary
// that cannot be parsed leaves "summary": null with "summary_error"; a capture that did not happen
// says why in "artifacts_unavailable". Throws std::runtime_error naming a file it cannot read or copy.
[[nodiscard]] nlohmann::json compiler_record(const nlohmann::json& captured, const std::filesystem::path& records_dir,
                                             const std::filesystem::path& relative_dir);

}  // namespace pallasbench
