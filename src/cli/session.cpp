#include "detail/session.hpp"

#include <fstream>
#include <iostream>
#include <set>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include "pallasbench/measure/nvml_device.hpp"
#include "pallasbench/orchestrate/paths.hpp"
#include "pallasbench/orchestrate/protocol.hpp"
#include "pallasbench/suite/selection.hpp"

namespace pallasbench::detail {
namespace {

using nlohmann::json;

// Utilisation (NVML's last-second average) at which the GPU counts as busy before the run starts.
constexpr unsigned k_busy_utilization_pct = 10;

// Other compute processes on the GPU and its utilisation before the run's own work: a busy GPU
// makes every timing suspect, so the run warns and the environment says so.
json gpu_activity(const std::set<pid_t>& our_workers) {
  std::string why;
  const auto nvml = nvml_device::open(nvml_index_of_cuda_device0(), why);
  if (!nvml) return {{"error", why}};
  json pids = json::array();
  std::size_t ours_listed = 0;
  for (const auto& p : nvml->compute_processes()) {
    if (our_workers.contains(static_cast<pid_t>(p.pid)))
      ++ours_listed;
    else
      pids.push_back(p.pid);
  }
  // In a container NVML may list host pids: then unmatched processes may be our own workers
  // (the reference and the executor hold the GPU).
  for (std::size_t i = ours_listed; i < our_workers.size() && !pids.empty(); ++i) pids.erase(pids.begin());
  const auto utilization = nvml->utilization_pct();
  const bool busy = !pids.empty() || (utilization && *utilization >= k_busy_utilization_pct);
  return {{"busy", busy},
          {"other_compute_processes", pids},
          {"utilization_pct", utilization ? json(*utilization) : json(nullptr)},
          {"pids_comparable", ours_listed > 0}};
}

// On the GPU: the device timer's view (timer kind, L2, clocks), other users of the GPU, and the
// roofline ceilings, measured once per run.
void describe_gpu(session& s, bool timing, worker_pool& pool, const std::set<pid_t>& our_workers) {
  auto& ref = pool.reference();
  const auto device = protocol::call(ref, protocol::device_request{}, s.waits.command);
  json gpu = {{"timer", device.value("timer", "wall")},
              {"timer_error", device.value("timer_error", json(nullptr))},
              {"device", device.value("device", json(nullptr))},
              {"activity", gpu_activity(our_workers)}};
  if (gpu["activity"].value("busy", false))
    fmt::print(std::cerr,
               "warning: the GPU is busy before the run (other compute processes {}, utilization {}%): "
               "timings may be disturbed\n",
               gpu["activity"]["other_compute_processes"].dump(), gpu["activity"]["utilization_pct"].dump());
  if (gpu["timer"] != "cupti")
    fmt::print(std::cerr, "warning: the CUPTI timer is unavailable ({}): timing falls back to the host wall clock\n",
               gpu["timer_error"].is_string() ? gpu["timer_error"].get<std::string>() : "unknown reason");
  if (s.environment.contains("ceilings_file"))
    gpu["ceilings"] = s.environment["ceilings_file"]["ceilings"];
  else if (timing && gpu["timer"] == "cupti")
    gpu["ceilings"] =
        protocol::call(ref, protocol::device_request{true}, s.waits.command).value("ceilings", json(nullptr));
  s.environment["gpu"] = gpu;
}

// --ceilings FILE: the ceilings, recorded in the environment with where they came from.
void read_ceilings_file(session& s, const std::string& file) {
  if (file.empty()) return;
  std::ifstream in(file);
  const auto ceilings = json::parse(in, nullptr, false);
  if (!ceilings.is_object() || !ceilings.contains("copy"))
    throw usage_error(fmt::format("--ceilings {}: not a JSON object with copy.gbps (and matmul_*.tflops)", file));
  s.environment["ceilings_file"] = {{"path", std::filesystem::absolute(file).string()}, {"ceilings", ceilings}};
}

filter_list make_filters(const selection_options& sel) {
  filter_list filters;
  if (!sel.tasks.empty()) filters.push_back(std::make_unique<name_filter>(sel.tasks));
  if (sel.level) filters.push_back(std::make_unique<level_filter>(*sel.level));
  if (!sel.category.empty()) filters.push_back(std::make_unique<category_filter>(sel.category));
  return filters;
}

}  // namespace

session open_session(const session_request& request) {
  session s;
  s.root = project_root();
  s.waits = timeouts::from_seconds(request.timeout_s);
  worker_options options;
  options.python = python_executable(s.root);
  options.project_root = s.root;
  options.device = request.device;
  options.startup_timeout = s.waits.startup;
  options.compile_cache = request.compile_cache;
  options.memory = request.memory;
  s.options = options;
  options.visible_devices = request.visible_devices;
  s.pool = std::make_unique<worker_pool>(options);
  const bool gpu_asked = request.device == device_choice::gpu;
  try {
    s.environment = s.pool->reference().hello().value("environment", json::object());
  } catch (const worker_failure& e) {
    if (gpu_asked) throw usage_error(fmt::format("--device gpu: JAX sees no GPU here: {}", e.what()));
    throw;
  }
  if (request.prestart) s.pool->prestart(*request.prestart);  // their JAX start overlaps the suite's description
  const std::string backend = s.environment.value("backend", "cpu");
  if (gpu_asked && backend != "gpu")
    throw usage_error(fmt::format("--device gpu: JAX sees no GPU here (backend '{}')", backend));
  s.device = backend == "gpu" ? device_kind::gpu : device_kind::cpu;
  // Describing the suite imports every task file (and JAX): part of the harness's start, so it
  // gets the start's wait, not --timeout's (a loaded CI machine took over 5 s for it).
  const auto reply = protocol::call(s.pool->reference(),
                                    protocol::describe_request{request.candidate_files, request.max_source_bytes,
                                                               request.tasks, request.diff_against},
                                    s.waits.startup);
  for (const auto& t : reply.at("tasks")) s.tasks.push_back(task_info::from_json(t));
  for (const auto& e : reply.at("errors"))
    fmt::print(std::cerr, "warning: task '{}' cannot be loaded: {}\n", e.value("name", "?"), e.value("error", "?"));
  s.candidates = reply.value("candidates", json::object());
  if (reply.contains("git_sha") && reply["git_sha"].is_string()) s.project_sha = reply["git_sha"];
  return s;
}

void describe_device(session& s, const evaluation_flags& flags, std::span<const std::unique_ptr<worker_pool>> pools) {
  read_ceilings_file(s, flags.ceilings_file);
  if (s.device != device_kind::gpu) return;
  std::set<pid_t> ours;
  for (const auto& pool : pools)
    for (const pid_t pid : pool->trusted_pids()) ours.insert(pid);
  describe_gpu(s, flags.timing, *pools.front(), ours);
}

std::vector<task_info> select(const std::vector<task_info>& all, const selection_options& sel) {
  if (const auto unknown = unknown_names(all, sel.tasks); !unknown.empty())
    throw usage_error(fmt::format("unknown task{} {} (see `pallasbench list`)", unknown.size() > 1 ? "s" : "",
                                  fmt::join(unknown, ", ")));
  auto tasks = select_tasks(all, make_filters(sel));
  if (tasks.empty()) throw usage_error("no task matches the selection");
  return tasks;
}

run_config make_config(const evaluation_flags& flags, device_kind device) {
  fmt::print(std::cerr, "{}\n",
             flags.seed ? fmt::format("seed {} (given): every evaluation's inputs are predictable", *flags.seed)
                        : std::string("seeds: a fresh one from OS entropy per evaluation (each record's `seed`; "
                                      "--seed S reproduces a record)"));
  return run_config{flags.size, device, flags.seeds, flags.timeout_s, flags.seed, flags.shard, flags.dtype};
}

timing_options make_timing(const evaluation_flags& flags, const session& s) {
  timing_options timing;
  timing.enabled = flags.timing;
  timing.stopping.max_noise = flags.max_noise;
  timing.stopping.max_median_ci = flags.max_median_ci;
  timing.stopping.budget_s = flags.timing_budget_s.value_or(timing_options::default_budget_s(s.device));
  const json none = nullptr;
  const json& l2 = s.environment.contains("gpu")
                       ? s.environment["gpu"].value("device", json::object()).value("l2_bytes", none)
                       : none;
  if (s.environment.contains("ceilings_file")) {
    const auto& file = s.environment["ceilings_file"];
    const json& ceilings = file["ceilings"];
    timing.ceilings = device_ceilings::from_json(ceilings, ceilings.value("l2_bytes", l2), file.value("path", ""));
    if (!timing.ceilings)
      throw usage_error(fmt::format("--ceilings {}: copy.gbps must be positive", file.value("path", "")));
  } else if (s.environment.contains(json::json_pointer("/gpu/ceilings"))) {
    timing.ceilings =
        device_ceilings::from_json(s.environment.at(json::json_pointer("/gpu/ceilings")), l2, "measured this run");
  }
  if (!timing.ceilings)
    timing.no_ceilings_reason = s.device == device_kind::gpu
                                    ? "no measured ceilings (no CUPTI timer, or --no-timing)"
                                    : "no ceilings on the CPU (interpret mode): --ceilings FILE applies given ones";
  return timing;
}

}  // namespace pallasbench::detail
