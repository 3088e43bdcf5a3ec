#include "detail/command_setup.hpp"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <thread>

#include <fmt/format.h>

#include "pallasbench/orchestrate/memory_budget.hpp"
#include "pallasbench/orchestrate/paths.hpp"
#include "pallasbench/orchestrate/seeds.hpp"
#include "pallasbench/record/jsonl.hpp"

namespace pallasbench::detail {
namespace {
// Limits a user can act on: a NaN or infinite time never compares as too small, a timeout under
// 0.1 s cannot start a worker, and a billion seeds run for ever.
constexpr int k_max_seeds = 1000;
constexpr double k_min_timeout_s = 0.1;

}  // namespace

void validate(const evaluation_flags& flags) {
  if (flags.seeds < 3 || flags.seeds > k_max_seeds)
    throw usage_error(fmt::format("--seeds {}: from 3 to {} seeds", flags.seeds, k_max_seeds));
  if (!std::isfinite(flags.timeout_s) || flags.timeout_s < k_min_timeout_s)
    throw usage_error(
        fmt::format("--timeout {}: a finite number of seconds, at least {}", flags.timeout_s, k_min_timeout_s));
  if (!(flags.max_noise > 0 && flags.max_noise < 1))
    throw usage_error(fmt::format("--max-noise {}: a relative noise between 0 and 1 (exclusive)", flags.max_noise));
  if (!(flags.max_median_ci >= 0 && flags.max_median_ci < 1))
    throw usage_error(
        fmt::format("--max-median-ci {}: a relative half-width from 0 (off) to 1 (exclusive)", flags.max_median_ci));
  if (flags.timing_budget_s && !(std::isfinite(*flags.timing_budget_s) && *flags.timing_budget_s > 0))
    throw usage_error(fmt::format("--timing-budget {}: a finite, positive number of seconds", *flags.timing_budget_s));
  if (flags.max_source_bytes <= 0)
    throw usage_error(fmt::format("--max-source-bytes {}: a positive number of bytes", flags.max_source_bytes));
  if (flags.seed && *flags.seed > k_max_seed)
    throw usage_error(fmt::format("--seed {}: seeds are below 2^53 ({} at most)", *flags.seed, k_max_seed));
  if (!std::isfinite(flags.artifacts_timeout_s) || flags.artifacts_timeout_s < k_min_timeout_s)
    throw usage_error(fmt::format("--artifacts-timeout {}: a finite number of seconds, at least {}",
                                  flags.artifacts_timeout_s, k_min_timeout_s));
  if (!flags.compile_cache.empty()) {
    std::error_code ec;
    const std::filesystem::path dir = flags.compile_cache;
    if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec))
      throw usage_error(fmt::format("--compile-cache {}: not a folder", flags.compile_cache));
    std::filesystem::create_directories(dir, ec);
    if (ec)
      throw usage_error(fmt::format("--compile-cache {}: cannot create it: {}", flags.compile_cache, ec.message()));
  }
}

std::shared_ptr<const memory_containment> make_containment(const evaluation_flags& flags, std::size_t lanes,
                                                           std::size_t devices) {
  memory_request request;
  request.budget = memory_budget_bytes(flags.memory_gib, available_host_memory());
  request.lanes = std::max<std::size_t>(lanes, 1);
  request.lanes_per_device =
      (request.lanes + std::max<std::size_t>(devices, 1) - 1) / std::max<std::size_t>(devices, 1);
  request.cores = std::max(1U, std::thread::hardware_concurrency());
  request.gpu = flags.device != device_choice::cpu;  // ignored by JAX on a CPU backend
  request.tracer_gib = flags.tracer_memory_gib;
  request.tmpfs_mib = flags.tracer_tmpfs_mib;
  request.worker_gib = flags.worker_memory_gib;
  request.device_share = flags.device_share;
  auto containment = std::make_shared<memory_containment>();
  try {
    containment->plan = plan_memory(request);
  } catch (const std::invalid_argument& e) {
    throw usage_error(e.what());
  }
  containment->cgroups = cgroup_tree::detect(containment->cgroups_missing);
  return containment;
}

std::filesystem::path compile_cache_dir(const evaluation_flags& flags) {
  if (flags.compile_cache.empty()) return {};
  return std::filesystem::absolute(flags.compile_cache).lexically_normal();
}

// The records file of --out (or a fresh timestamped folder), checked before any worker starts:
// the folder is created and must be writable, a run never mixes into an earlier one silently, and
// the file's lock is taken (a second writer stops here).
std::unique_ptr<record_writer> open_records(const evaluation_flags& flags) {
  const std::filesystem::path dir = flags.out.empty() ? default_output_dir() : std::filesystem::path(flags.out);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw usage_error(fmt::format("--out {}: cannot create the folder: {}", dir.string(), ec.message()));
  if (!std::filesystem::is_directory(dir)) throw usage_error(fmt::format("--out {}: not a folder", dir.string()));
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw usage_error(fmt::format("--out {}: cannot write there: {}", dir.string(), std::strerror(errno)));
  const auto path = dir / "records.jsonl";
  if (std::filesystem::exists(path) && !flags.resume)
    throw usage_error(fmt::format("{} exists: pass --resume to continue it, or choose another --out", path.string()));
  try {
    return std::make_unique<record_writer>(path, flags.wait_lock ? lock_wait::wait : lock_wait::fail);
  } catch (const records_locked& e) {
    throw usage_error(e.what());
  }
}

// --resume: the records already in the file, read under its lock (so a queued run sees the
// records of the one before it).
std::map<std::string, nlohmann::json> resumed(const evaluation_flags& flags, const record_writer* writer) {
  if (!flags.resume || !writer) return {};
  try {
    return recorded_by_config_hash(writer->path());
  } catch (const std::runtime_error& e) {
    throw usage_error(fmt::format("--resume: {}", e.what()));
  }
}

std::filesystem::path records_file(const std::string& argument) {
  std::filesystem::path path(argument);
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) path = records_file_of(path);
  if (!std::filesystem::is_regular_file(path, ec))
    throw usage_error(fmt::format("cannot read records file {}", path.string()));
  return path;
}

std::vector<nlohmann::json> load_records(const std::vector<std::string>& arguments) {
  std::vector<nlohmann::json> all;
  for (const auto& argument : arguments) {
    const auto file = records_file(argument);
    try {
      auto records = read_records(file, &std::cerr);  // a cut last line is skipped with a warning
      for (auto& record : records) all.push_back(std::move(record));
    } catch (const std::runtime_error& e) {  // a corrupt line (the message names file:line)
      throw usage_error(e.what());
    }
  }
  return all;
}

}  // namespace pallasbench::detail
