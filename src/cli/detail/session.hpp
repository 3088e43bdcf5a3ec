// What every command that evaluates shares: the workers started, the device resolved, the suite
// described, the selection, the configuration and the timing options.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pallasbench/cli/commands.hpp"
#include "pallasbench/orchestrate/worker_pool.hpp"

namespace pallasbench::detail {

struct session {
  std::filesystem::path root;
  worker_options options;  // what the session's pool was made with: more lanes' pools are too
  std::unique_ptr<worker_pool> pool;
  device_kind device = device_kind::cpu;
  nlohmann::json environment;
  std::vector<task_info> tasks;
  nlohmann::json candidates = nlohmann::json::object();  // path -> facts, read by the reference
  std::optional<std::string> project_sha;
  timeouts waits;
};

struct session_request {
  device_choice device = device_choice::automatic;
  std::vector<std::string> candidate_files;  // absolute paths, read by the reference process
  std::optional<candidate_kind> prestart;    // whose processes start at once
  std::int64_t max_source_bytes = k_default_max_source_bytes;
  double timeout_s = 300;
  std::string visible_devices;                       // the first lane's GPU (CUDA_VISIBLE_DEVICES); empty: as it is
  std::filesystem::path compile_cache;               // --compile-cache (absolute; empty: none)
  std::shared_ptr<const memory_containment> memory;  // every worker's memory bound (null: none)
  // The tasks to describe when the command names them all (a task name list, a batch): each
  // described task costs the start its import and its sources' bundling. None: every task.
  std::optional<std::vector<std::string>> tasks;
  // A candidate file -> the tasks it is evaluated on: its records' `diff` is against their files.
  std::map<std::string, std::vector<std::string>> diff_against;
};

[[nodiscard]] session open_session(const session_request& request);

// --ceilings FILE, then on the GPU the device's view (timer, clocks, other users) and, when
// timing, its measured ceilings: into the environment every record carries. The first of the
// lanes' `pools` (the session's) measures; the others' workers are ours, not other users.
void describe_device(session& s, const evaluation_flags& flags, std::span<const std::unique_ptr<worker_pool>> pools);

// The tasks the selection names; usage_error for unknown names or an empty selection.
[[nodiscard]] std::vector<task_info> select(const std::vector<task_info>& all, const selection_options& selection);

[[nodiscard]] run_config make_config(const evaluation_flags& flags, device_kind device);
[[nodiscard]] timing_options make_timing(const evaluation_flags& flags, const session& s);

}  // namespace pallasbench::detail
