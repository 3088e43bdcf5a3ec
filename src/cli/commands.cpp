#include "pallasbench/cli/commands.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include "detail/command_setup.hpp"
#include "pallasbench/report/artifacts.hpp"
#include "pallasbench/orchestrate/evaluator.hpp"
#include "pallasbench/suite/selection.hpp"
#include "pallasbench/core/interrupt.hpp"
#include "pallasbench/record/jsonl.hpp"
#include "pallasbench/measure/nvml_device.hpp"
#include "pallasbench/orchestrate/paths.hpp"
#include "pallasbench/orchestrate/runner.hpp"
#include "pallasbench/orchestrate/seeds.hpp"
#include "pallasbench/report/summary.hpp"

namespace pallasbench {
namespace {

using detail::open_records;
using detail::resumed;
using detail::validate;

using nlohmann::json;

// The reference worker started, the device resolved, the suite described.
struct session {
  std::filesystem::path root;
  std::unique_ptr<worker_pool> pool;
  std::string device;  // "cpu" or "gpu"
  json environment;
  std::vector<task_info> tasks;
  json candidates = json::object();  // path -> {sha256, source, bundled_source}, read by the reference
  std::optional<std::string> project_sha;
};

// prestart: the kind of candidate the session evaluates ("suite", "user"), whose processes start
// at once; empty: none.
session open_session(const std::string& device, const std::vector<std::string>& candidate_files,
                     const std::string& prestart, std::int64_t max_source_bytes = k_default_max_source_bytes) {
  session s;
  s.root = project_root();
  worker_options options{python_executable(s.root), s.root, device, std::chrono::seconds(180), {}};
  s.pool = std::make_unique<worker_pool>(options);
  try {
    s.environment = s.pool->reference().hello().value("environment", json::object());
  } catch (const worker_failure& e) {
    if (device == "gpu") throw usage_error(fmt::format("--device gpu: JAX sees no GPU here: {}", e.what()));
    throw;
  }
  auto& ref = s.pool->reference();
  if (!prestart.empty()) s.pool->prestart(prestart);  // their JAX start overlaps the suite's description
  const std::string backend = s.environment.value("backend", "cpu");
  if (device == "gpu" && backend != "gpu")
    throw usage_error(fmt::format("--device gpu: JAX sees no GPU here (backend '{}')", backend));
  s.device = backend == "gpu" ? "gpu" : "cpu";
  const auto reply =
      ref.call({{"cmd", "describe"}, {"candidate_files", candidate_files}, {"max_source_bytes", max_source_bytes}},
               std::chrono::seconds(300));
  for (const auto& t : reply.at("tasks")) s.tasks.push_back(task_info::from_json(t));
  for (const auto& e : reply.at("errors"))
    fmt::print(std::cerr, "warning: task '{}' cannot be loaded: {}\n", e.value("name", "?"), e.value("error", "?"));
  s.candidates = reply.value("candidates", json::object());
  if (reply.contains("git_sha") && reply["git_sha"].is_string()) s.project_sha = reply["git_sha"];
  return s;
}

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
// roofline ceilings, measured once per run, into the environment every record carries.
void describe_gpu(session& s, bool timing) {
  auto& ref = s.pool->reference();
  const auto device = ref.call({{"cmd", "device"}}, std::chrono::seconds(120));
  json gpu = {{"timer", device.value("timer", "wall")},
              {"timer_error", device.value("timer_error", json(nullptr))},
              {"device", device.value("device", json(nullptr))},
              {"activity", gpu_activity({ref.pid(), s.pool->executor().pid()})}};
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
        ref.call({{"cmd", "device"}, {"ceilings", true}}, std::chrono::seconds(300)).value("ceilings", json(nullptr));
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

std::vector<task_info> select(const std::vector<task_info>& all, const selection_options& sel) {
  if (const auto unknown = unknown_names(all, sel.tasks); !unknown.empty())
    throw usage_error(fmt::format("unknown task{} {} (see `pallasbench list`)", unknown.size() > 1 ? "s" : "",
                                  fmt::join(unknown, ", ")));
  auto tasks = select_tasks(all, make_filters(sel));
  if (tasks.empty()) throw usage_error("no task matches the selection");
  return tasks;
}

run_config make_config(const evaluation_flags& flags, const std::string& device) {
  fmt::print(std::cerr, "{}\n",
             flags.seed ? fmt::format("seed {} (given): every evaluation's inputs are predictable", *flags.seed)
                        : std::string("seeds: a fresh one from OS entropy per evaluation (each record's `seed`; "
                                      "--seed S reproduces a record)"));
  return run_config{flags.size, device, flags.seeds, flags.timeout_s, flags.seed};
}

timing_options make_timing(const evaluation_flags& flags, const session& s) {
  timing_options timing;
  timing.enabled = flags.timing;
  timing.stopping.max_noise = flags.max_noise;
  // Interpret-mode wall times mean little and never settle: a short budget keeps CPU runs quick.
  timing.stopping.budget_s = flags.timing_budget_s.value_or(s.device == "gpu" ? 2.0 : 0.5);
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
    timing.no_ceilings_reason = s.device == "gpu"
                                    ? "no measured ceilings (no CUPTI timer, or --no-timing)"
                                    : "no ceilings on the CPU (interpret mode): --ceilings FILE applies given ones";
  return timing;
}

// Over every selected task, recorded ones included: 0 only when all are correct and robust.
int finish(const run_outcome& outcome) {
  if (outcome.interrupted) return exit_code::interrupted;
  for (const auto& row : outcome.rows)
    if (!row.passed()) return row.status == "harness_error" ? exit_code::harness : exit_code::check_failed;
  return exit_code::ok;
}

}  // namespace

int list_command(const list_options& options) {
  auto s = open_session("cpu", {}, "");
  const auto tasks = select(s.tasks, options.selection);
  if (options.json) {
    json out = json::array();
    for (const auto& t : tasks)
      out.push_back({{"name", t.name},
                     {"level", t.level},
                     {"category", t.category},
                     {"sizes",
                      {{"small", t.shape_summary("small")},
                       {"medium", t.shape_summary("medium")},
                       {"large", t.shape_summary("large")}}}});
    fmt::print("{}\n", out.dump(2));
    return exit_code::ok;
  }
  std::size_t width = 4;
  for (const auto& t : tasks) width = std::max(width, t.name.size());
  fmt::print("{:<{}}  {:>5}  {:<20}  {}\n", "task", width, "level", "category", "medium inputs [small | large]");
  for (const auto& t : tasks)
    fmt::print("{:<{}}  {:>5}  {:<20}  {}  [{} | {}]\n", t.name, width, t.level, t.category, t.shape_summary("medium"),
               t.shape_summary("small"), t.shape_summary("large"));
  fmt::print("{} tasks\n", tasks.size());
  return exit_code::ok;
}

int run_command(const run_options& options) {
  validate(options.flags);
  install_interrupt_handlers();
  const auto writer = open_records(options.flags);
  const auto& path = writer->path();
  auto s = open_session(options.flags.device, {}, "suite");
  const auto tasks = select(s.tasks, options.selection);
  read_ceilings_file(s, options.flags.ceilings_file);
  if (s.device == "gpu") describe_gpu(s, options.flags.timing);
  const auto config = make_config(options.flags, s.device);
  const scratch_dir scratch;
  evaluator eval(*s.pool, scratch, config, make_timing(options.flags, s), s.environment, s.project_sha,
                 utc_timestamp());
  eval.set_artifacts({options.flags.artifacts, options.flags.pass_trail, path.parent_path()});
  fmt::print("pallasbench run: {} task(s), size {}, device {} ({}), records -> {}\n", tasks.size(), config.size,
             s.device, s.environment.value("device_kind", "?"), path.string());
  runner r(eval, writer.get(), resumed(options.flags, writer.get()), std::cout);
  const auto outcome = r.run(
      tasks,
      [](const task_info& t) {
        return candidate_spec{"suite", {}, t.sha256};
      },
      config);
  fmt::print("\n");
  make_printer(options.summary_format, options.summary)->print(std::cout, outcome.rows);
  if (outcome.recorded)
    fmt::print("{} task(s) were recorded before in {}: their records count as they stand\n", outcome.recorded,
               path.string());
  if (outcome.interrupted) fmt::print("interrupted: finished records are in {}; rerun with --resume\n", path.string());
  return finish(outcome);
}

int eval_command(const eval_options& options) {
  validate(options.flags);
  std::vector<std::string> paths;
  for (const auto& candidate : options.candidates) {
    if (!std::filesystem::is_regular_file(candidate))
      throw usage_error(fmt::format("candidate file not found: {}", candidate));
    paths.push_back(std::filesystem::absolute(candidate).string());
  }
  install_interrupt_handlers();
  std::unique_ptr<record_writer> writer;
  if (!options.flags.out.empty()) writer = open_records(options.flags);
  auto s = open_session(options.flags.device, paths, "user", options.flags.max_source_bytes);
  const auto tasks = select(s.tasks, {{options.task}, std::nullopt, ""});
  const auto recorded = resumed(options.flags, writer.get());
  read_ceilings_file(s, options.flags.ceilings_file);
  if (s.device == "gpu") describe_gpu(s, options.flags.timing);
  const auto config = make_config(options.flags, s.device);
  const scratch_dir scratch;
  evaluator eval(*s.pool, scratch, config, make_timing(options.flags, s), s.environment, s.project_sha,
                 utc_timestamp());
  // Without --out there is no folder for artifact files: they go inline.
  eval.set_artifacts({options.flags.artifacts, options.flags.pass_trail,
                      options.flags.out.empty() ? std::filesystem::path{} : std::filesystem::path(options.flags.out)});
  runner r(eval, writer.get(), recorded, std::cerr);
  run_outcome all;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const auto& facts = s.candidates.value(paths[i], json::object());
    const candidate_spec spec{"user",
                              paths[i],
                              facts.value("sha256", ""),
                              facts.value("source", ""),
                              facts.value("bundled_source", ""),
                              facts.value("encoding", ""),
                              facts.value("refused", "")};
    s.pool->keep_spare_tracer(i + 1 < paths.size());  // the next candidate's tracer starts meanwhile
    auto outcome = r.run(
        tasks, [&](const task_info&) { return spec; }, config);
    for (auto& row : outcome.rows) all.rows.push_back(std::move(row));
    for (auto& record : outcome.records) all.records.push_back(std::move(record));
    all.recorded += outcome.recorded;
    if (outcome.interrupted) {
      all.interrupted = true;
      break;
    }
  }
  if (options.json)
    for (const auto& record : all.records)
      fmt::print("{}\n", record.dump(-1, ' ', false, json::error_handler_t::replace));
  table_printer().print(std::cerr, all.rows);  // for the reader, beside the records on stdout
  return finish(all);
}

int artifacts_command(const artifacts_options& options) {
  auto s = open_session(options.device, {}, "");
  const auto task = select(s.tasks, {{options.task}, std::nullopt, ""}).front();
  json specs = json::array();
  for (const auto& in : task.inputs) {
    if (!task.dtypes.contains(in.name))
      throw std::runtime_error(fmt::format("task '{}': no dtype for input {}", task.name, in.name));
    specs.push_back({{"shape", task.shapes.at(options.size).at(in.name)}, {"dtype", task.dtypes.at(in.name)}});
  }
  json request = {{"cmd", "trace"}, {"candidate", {{"task", task.name}}}, {"inputs", specs}, {"platform", s.device}};
  if (s.device == "gpu") request["device_kind"] = s.environment.value("device_kind", "");
  const auto reply = s.pool->take_tracer()->call(request, std::chrono::seconds(600));
  const auto& dag = reply.at("jaxpr_dag");
  if (options.dot.empty()) {
    fmt::print("{}\n", dag.dump(2));
    return exit_code::ok;
  }
  const auto dot = jaxpr_dot(dag, fmt::format("{} ({}, {})", task.name, options.size, s.device));
  if (options.dot == "-") {
    fmt::print("{}", dot);
    return exit_code::ok;
  }
  std::ofstream out(options.dot);
  out << dot;
  if (!out) throw usage_error(fmt::format("cannot write {}", options.dot));
  fmt::print(std::cerr, "wrote {} ({} nodes)\n", options.dot, dag.at("nodes").size());
  return exit_code::ok;
}

int report_command(const report_options& options) {
  std::vector<summary_row> rows;
  std::map<std::pair<std::string, std::string>, std::size_t> index;  // (task, size) -> row
  for (const auto& file : options.records) {
    if (!std::ifstream(file)) throw usage_error(fmt::format("cannot read records file {}", file));
    std::vector<json> records;
    try {
      records = read_records(file, &std::cerr);  // a cut last line is skipped with a warning
    } catch (const std::runtime_error& e) {
      throw usage_error(e.what());
    }
    for (const auto& record : records) {
      auto row = summary_row::from_record(record);
      const auto key = std::make_pair(row.task, row.size);
      if (const auto it = index.find(key); it != index.end()) {
        rows[it->second] = std::move(row);
      } else {
        index.emplace(key, rows.size());
        rows.push_back(std::move(row));
      }
    }
  }
  make_printer(options.format, options.summary)->print(std::cout, rows);
  return exit_code::ok;
}

}  // namespace pallasbench
