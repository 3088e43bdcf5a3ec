#include "pallasbench/cli/commands.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>

#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include "detail/batch.hpp"
#include "detail/command_setup.hpp"
#include "detail/devices.hpp"
#include "detail/python_tool.hpp"
#include "detail/session.hpp"
#include "pallasbench/core/interrupt.hpp"
#include "pallasbench/orchestrate/lanes.hpp"
#include "pallasbench/orchestrate/memory_budget.hpp"
#include "pallasbench/orchestrate/run_trace.hpp"
#include "pallasbench/orchestrate/runner.hpp"
#include "pallasbench/orchestrate/seeds.hpp"
#include "pallasbench/report/artifacts.hpp"
#include "pallasbench/suite/shard.hpp"

namespace pallasbench {
namespace {

using detail::open_records;
using detail::resumed;
using detail::validate;
using nlohmann::json;

// What `run` and `eval` both do: candidates (the suite's own kernels, user files, or a batch's
// requests) over the selected tasks, in parallel lanes, each record written as it is done and
// told to the printers.
struct evaluation_plan {
  const evaluation_flags& flags;
  selection_options selection;
  std::vector<std::string> candidate_files;         // absolute; empty: the suite's own kernels
  const std::vector<detail::batch_request>* batch;  // eval --batch: the requests, else null
  record_writer* writer = nullptr;                  // null: no records file
  std::filesystem::path artifacts_dir;              // beside the records (empty: artifacts go inline)
};

// Over every selected task, recorded ones included: 0 only when all are correct and robust.
int exit_status(const run_outcome& outcome) {
  if (outcome.interrupted) return exit_code::interrupted;
  for (const auto& row : outcome.rows)
    if (!row.passed) return row.status == task_status::harness_error ? exit_code::harness : exit_code::check_failed;
  return exit_code::ok;
}

candidate_spec user_candidate(const json& facts, const std::string& path) {
  return {candidate_kind::user,
          path,
          facts.value("sha256", ""),
          facts.value("source", ""),
          facts.value("bundled_source", ""),
          facts.value("encoding", ""),
          facts.value("refused", ""),
          "",
          ""};
}

// The unified diff from `task`'s file to a candidate, in its facts; "" when none was made.
std::string diff_of(const json& facts, const std::string& task) {
  const auto diffs = facts.value("diffs", json::object());
  const auto it = diffs.find(task);
  return it != diffs.end() && it->is_string() ? it->get<std::string>() : "";
}

// The evaluations the plan asks for, in the order their records are written (bar a batch's), each
// with its whole configuration: the run's, at the size and dtype its request names.
std::vector<evaluation_job> make_jobs(const evaluation_plan& plan, const detail::session& s, const run_config& base) {
  std::vector<evaluation_job> jobs;
  const auto facts = [&](const std::string& path) {
    return user_candidate(s.candidates.value(path, json::object()), path);
  };
  const auto job = [&](const task_info& task, candidate_spec candidate, problem_size size, float_dtype dtype,
                       std::string id, std::optional<kernel_backend> backend = {}) {
    if (candidate.kind == candidate_kind::user)  // from the task's file, as the reference process wrote it
      candidate.diff = diff_of(s.candidates.value(candidate.file.string(), json::object()), task.name);
    run_config config = base;
    config.size = size;
    config.dtype = dtype;
    config.backend = backend;
    return evaluation_job{task, std::move(candidate), std::move(config), std::move(id)};
  };
  const bool suite = plan.candidate_files.empty() && !plan.batch;
  if (!suite && plan.flags.backend != backend_choice::preferred)
    throw usage_error(
        fmt::format("--backend {}: a candidate is evaluated as what its module holds (its record's "
                    "`backend` says which); --backend chooses among the suite's own kernels",
                    to_string(plan.flags.backend)));
  // A sweep: each task at every size and dtype asked for (nvbench's axes).
  const auto sizes = plan.flags.sizes.empty() ? std::vector{base.size} : plan.flags.sizes;
  const auto dtypes = plan.flags.dtypes.empty() ? std::vector{base.dtype} : plan.flags.dtypes;
  if (plan.batch) {
    if (sizes.size() > 1 || dtypes.size() > 1)
      throw usage_error("--batch with several --size or --dtype values: each request names its own size and dtype");
    std::map<std::string, const task_info*> by_name;
    for (const auto& t : s.tasks) by_name[t.name] = &t;
    for (const auto& r : *plan.batch) {
      const auto it = by_name.find(r.task);
      if (it == by_name.end())
        throw usage_error(
            fmt::format("--batch line {} (id {}): unknown task '{}' (see `pallasbench list`)", r.line, r.id, r.task));
      auto candidate = facts(r.path);
      if (r.inline_source) candidate.recorded_name = "request:" + r.id;
      jobs.push_back(
          job(*it->second, std::move(candidate), r.size.value_or(base.size), r.dtype.value_or(base.dtype), r.id));
    }
    return jobs;
  }
  const auto tasks = detail::select(s.tasks, plan.selection);
  if (suite) {
    std::size_t without = 0;
    std::vector<std::string> gpu_only;  // implementations left out off the GPU
    const bool on_gpu = s.device == device_kind::gpu;
    for (const auto& t : tasks) {
      const auto backends = t.implementations(plan.flags.backend, on_gpu);
      for (const auto b : t.implementations(plan.flags.backend))
        if (std::find(backends.begin(), backends.end(), b) == backends.end())
          gpu_only.push_back(fmt::format("{}/{}", t.name, to_string(b)));
      without += backends.empty();
    }
    // Sizes, then dtypes, outermost: the records and the summary come grouped by them.
    for (const auto size : sizes)
      for (const auto dtype : dtypes)
        for (const auto& t : tasks) {
          candidate_spec own;  // the task's own kernel (candidate_kind::suite)
          own.sha256 = t.sha256;
          for (const auto backend : t.implementations(plan.flags.backend, on_gpu))
            jobs.push_back(job(t, own, size, dtype, "", backend));
        }
    if (!gpu_only.empty())
      fmt::print(std::cerr, "--backend {}: GPU-only implementation(s) {} on the CPU: {}\n",
                 to_string(plan.flags.backend),
                 plan.flags.backend == backend_choice::preferred ? "replaced by the task's next one" : "left out",
                 fmt::join(gpu_only, ", "));
    if (without)
      fmt::print(std::cerr, "--backend {}: {} of the {} selected task(s) have no such implementation here (left out)\n",
                 to_string(plan.flags.backend), without, tasks.size());
    return jobs;
  }
  for (const auto& path : plan.candidate_files)
    for (const auto size : sizes)
      for (const auto dtype : dtypes)
        for (const auto& t : tasks) jobs.push_back(job(t, facts(path), size, dtype, ""));
  return jobs;
}

// --shard I/N: this shard's share of the jobs, each (task, size, dtype, candidate) falling to one
// shard by its hash (suite/shard.hpp), in their order; all of them unsharded. A share may be
// empty: that is no error (a cluster's array task with nothing to do succeeds and writes no
// records.jsonl).
std::vector<evaluation_job> shard_filter(std::vector<evaluation_job> jobs, const evaluation_flags& flags) {
  if (!flags.shard) return jobs;
  const auto all = jobs.size();
  std::erase_if(jobs, [&](const evaluation_job& job) {
    return !flags.shard->contains(
        work_item::of(job.task, job.config.size, job.config.dtype, job.candidate.sha256, job.config.backend));
  });
  fmt::print(std::cerr, "shard {}: {} of the {} selected evaluation(s){}\n", flags.shard->to_string(), jobs.size(), all,
             jobs.empty() ? " (nothing to do here: no records are written)" : "");
  return jobs;
}

// The tasks an evaluation can reach when it names them all: its batch's, or a task list with no
// --level or --category; none when a filter must see every task.
std::optional<std::vector<std::string>> named_tasks(const evaluation_plan& plan) {
  if (plan.batch) {
    std::set<std::string> names;
    for (const auto& r : *plan.batch) names.insert(r.task);
    return std::vector<std::string>(names.begin(), names.end());
  }
  const auto& sel = plan.selection;
  if (sel.tasks.empty() || sel.level || !sel.category.empty()) return std::nullopt;
  return sel.tasks;
}

// Each candidate file -> the tasks it is evaluated on: its records' `diff` is against their files.
std::map<std::string, std::vector<std::string>> diff_pairs(const evaluation_plan& plan) {
  std::map<std::string, std::vector<std::string>> pairs;
  if (plan.batch) {
    for (const auto& r : *plan.batch) pairs[r.path].push_back(r.task);
    return pairs;
  }
  const auto tasks = named_tasks(plan).value_or(std::vector<std::string>{});
  for (const auto& path : plan.candidate_files) pairs[path] = tasks;
  return pairs;
}

int evaluate(const evaluation_plan& plan, printer& out) {
  const bool suite = plan.candidate_files.empty();
  const auto kind = suite ? candidate_kind::suite : candidate_kind::user;
  std::optional<run_trace> trace;
  if (!plan.flags.trace_file.empty()) {
    // Refused before the run, not after it: an hour's timeline must not be lost to a bad path.
    if (!std::ofstream(plan.flags.trace_file, std::ios::trunc))
      throw usage_error(fmt::format("--trace {}: cannot write there", plan.flags.trace_file));
    trace.emplace().name_track(0, "harness");
  }
  run_trace* const tracing = trace ? &*trace : nullptr;
  auto devices = plan.flags.device == device_choice::cpu ? detail::cpu_device() : detail::resolve_gpus(plan.flags.gpus);
  // The most lanes the run can have (its jobs are known once the suite is described): each
  // worker's memory bound is set as it starts.
  const std::size_t most_jobs = plan.batch ? plan.batch->size() : suite ? SIZE_MAX : plan.candidate_files.size();
  const auto memory = detail::make_containment(
      plan.flags, lane_count(plan.flags.jobs, most_jobs, std::thread::hardware_concurrency()), devices.size());
  auto s = [&] {
    const trace_step step(tracing, 0, "start the reference, describe the tasks");
    return detail::open_session({plan.flags.device, plan.candidate_files, kind, plan.flags.max_source_bytes,
                                 plan.flags.timeout_s, devices.front().visible, detail::compile_cache_dir(plan.flags),
                                 memory, named_tasks(plan), diff_pairs(plan)});
  }();
  if (s.device == device_kind::cpu) devices = detail::cpu_device();
  const auto config = detail::make_config(plan.flags, s.device);
  const auto jobs = shard_filter(make_jobs(plan, s, config), plan.flags);
  const auto recorded = resumed(plan.flags, plan.writer);
  // The other lanes' workers start while the device is described: their start is host work (the
  // JAX import) but for one tiny array each, and the ceilings are medians of CUPTI device times.
  auto pools = start_lane_pools(std::move(s.pool), s.options, devices,
                                lane_count(plan.flags.jobs, jobs.size(), std::thread::hardware_concurrency()));
  {
    const trace_step step(tracing, 0, "describe the device (ceilings)");
    detail::describe_device(s, plan.flags, pools);
  }
  const evaluator_setup setup{config,
                              detail::make_timing(plan.flags, s),
                              {plan.flags.artifacts, plan.flags.pass_trail, plan.artifacts_dir,
                               std::chrono::milliseconds(static_cast<long>(plan.flags.artifacts_timeout_s * 1000))},
                              s.environment,
                              s.project_sha,
                              utc_timestamp()};
  lane_set lanes(std::move(pools), devices, setup);
  if (trace) lanes.trace_to(*trace);
  if (!jobs.empty()) {
    const trace_step step(tracing, 0, "start the lanes' workers");
    // More user candidates than lanes: each lane starts its next tracer while it evaluates.
    lanes.prestart(kind, !suite && jobs.size() > lanes.size());
  }
  const std::string records = plan.writer ? plan.writer->path().string() : "";
  std::vector<std::string> sizes;  // a sweep names its sizes
  for (const auto size : plan.flags.sizes) sizes.emplace_back(to_string(size));
  out.run_started({jobs.size(), sizes.size() > 1 ? fmt::format("{}", fmt::join(sizes, ",")) : config.size_name(),
                   std::string(to_string(s.device)), s.environment.value("device_kind", "?"), records, lanes.size(),
                   devices.size()});
  runner r(lanes.evaluators(), plan.writer, recorded, out,
           plan.batch ? record_order::completion : record_order::selection);
  // Measured with every lane's workers up: their own memory is not the evaluations' to share.
  // What was available beyond the budget stays free as the run goes on (the live limit).
  const auto available = available_host_memory();
  const auto budget = memory_budget_bytes(plan.flags.memory_gib, available);
  live_memory live;
  if (budget > 0) live = {[] { return available_host_memory(); }, memory_reserve_bytes(budget, available)};
  // Each job in flight counts its tracer's share beside its estimate: N lanes' tracers fit too.
  r.set_memory_budget(budget, std::move(live), memory->plan.tracer_bytes);
  const auto outcome = [&] {
    const trace_step step(tracing, 0, "evaluate");
    return r.run(jobs);
  }();
  if (trace) trace->write(plan.flags.trace_file);
  out.run_finished(outcome.rows, {outcome.recorded, outcome.interrupted, records});
  return exit_status(outcome);
}

}  // namespace

int list_command(const list_options& options) {
  if (options.format == list_format::markdown) {
    std::vector<std::string> args;
    if (options.selection.level) args.insert(args.end(), {"--level", std::to_string(*options.selection.level)});
    if (!options.selection.category.empty()) args.insert(args.end(), {"--category", options.selection.category});
    exec_python_tool("task_docs", args);
  }
  auto s = detail::open_session({device_choice::cpu, {}, std::nullopt, k_default_max_source_bytes, 300, "", {}});
  const auto tasks = detail::select(s.tasks, options.selection);
  if (options.format == list_format::json) {
    json out = json::array();
    for (const auto& t : tasks)
      out.push_back({{"name", t.name},
                     {"level", t.level},
                     {"category", t.category},
                     {"sizes",
                      {{"small", t.shape_summary(problem_size::small)},
                       {"medium", t.shape_summary(problem_size::medium)},
                       {"large", t.shape_summary(problem_size::large)}}}});
    fmt::print("{}\n", out.dump(2));
    return exit_code::ok;
  }
  std::size_t width = 4;
  for (const auto& t : tasks) width = std::max(width, t.name.size());
  fmt::print("{:<{}}  {:>5}  {:<20}  {}\n", "task", width, "level", "category", "medium inputs [small | large]");
  for (const auto& t : tasks)
    fmt::print("{:<{}}  {:>5}  {:<20}  {}  [{} | {}]\n", t.name, width, t.level, t.category,
               t.shape_summary(problem_size::medium), t.shape_summary(problem_size::small),
               t.shape_summary(problem_size::large));
  fmt::print("{} tasks\n", tasks.size());
  return exit_code::ok;
}

int run_command(const run_options& options) {
  validate(options.flags);
  install_interrupt_handlers();
  const auto writer = open_records(options.flags);
  auto printers = std::make_unique<printer_list>();
  printers->add(std::make_unique<progress_printer>(std::cout, true))
      .add(std::make_unique<summary_printer>(std::cout, options.format, options.summary))
      .add(std::make_unique<phase_totals_printer>(std::cout));
  const auto out = with_progress(std::move(printers), std::cout, STDOUT_FILENO, options.flags.progress);
  return evaluate({options.flags, options.selection, {}, nullptr, writer.get(), writer->path().parent_path()}, *out);
}

int eval_command(const eval_options& options) {
  validate(options.flags);
  if (options.batch.empty() == (options.task.empty() || options.candidates.empty()))
    throw usage_error("eval: give --task with --candidate(s), or --batch FILE, not both");
  std::vector<std::string> paths;
  detail::batch batch;
  if (!options.batch.empty()) {
    batch = detail::read_batch(options.batch);
    for (const auto& r : batch.requests) paths.push_back(r.path);
  }
  for (const auto& candidate : options.candidates) {
    if (!std::filesystem::is_regular_file(candidate))
      throw usage_error(fmt::format("candidate file not found: {}", candidate));
    paths.push_back(std::filesystem::absolute(candidate).string());
  }
  install_interrupt_handlers();
  std::unique_ptr<record_writer> writer;
  if (!options.flags.out.empty()) writer = open_records(options.flags);
  // Records (--json) on stdout; for the reader, progress and the table beside them on stderr.
  // The live line (on stderr) wraps them all: stdout may be the same terminal.
  auto printers = std::make_unique<printer_list>();
  if (options.json) printers->add(std::make_unique<record_lines_printer>(std::cout));
  printers->add(std::make_unique<progress_printer>(std::cerr, false))
      .add(std::make_unique<summary_printer>(std::cerr, summary_format::table));
  const auto out = with_progress(std::move(printers), std::cerr, STDERR_FILENO, options.flags.progress);
  // Without --out there is no folder for artifact files: they go inline.
  const std::filesystem::path artifacts_dir = options.flags.out.empty() ? "" : options.flags.out;
  return evaluate({options.flags,
                   {{options.task}, std::nullopt, ""},
                   paths,
                   options.batch.empty() ? nullptr : &batch.requests,
                   writer.get(),
                   artifacts_dir},
                  *out);
}

int artifacts_command(const artifacts_options& options) {
  auto s = detail::open_session({options.device, {}, std::nullopt, k_default_max_source_bytes, 300, "", {}});
  const auto task = detail::select(s.tasks, {{options.task}, std::nullopt, ""}).front();
  const auto size = std::string(to_string(options.size));
  protocol::trace_request request;
  request.task = task.name;
  for (const auto& in : task.inputs) {
    if (!task.dtypes.contains(in.name))
      throw std::runtime_error(fmt::format("task '{}': no dtype for input {}", task.name, in.name));
    request.inputs.push_back({task.shapes.at(size).at(in.name), task.dtypes.at(in.name)});
  }
  request.platform = s.device;
  if (s.device == device_kind::gpu) request.gpu_kind = s.environment.value("device_kind", "");
  const auto reply = protocol::call(*s.pool->take_tracer(), request, s.waits.command);
  const auto& dag = reply.at("jaxpr_dag");
  if (options.dot.empty()) {
    fmt::print("{}\n", dag.dump(2));
    return exit_code::ok;
  }
  const auto dot = jaxpr_dot(dag, fmt::format("{} ({}, {})", task.name, size, to_string(s.device)));
  if (options.dot == "-") {
    fmt::print("{}", dot);
    return exit_code::ok;
  }
  std::ofstream file(options.dot);
  file << dot;
  if (!file) throw usage_error(fmt::format("cannot write {}", options.dot));
  fmt::print(std::cerr, "wrote {} ({} nodes)\n", options.dot, dag.at("nodes").size());
  return exit_code::ok;
}

}  // namespace pallasbench
