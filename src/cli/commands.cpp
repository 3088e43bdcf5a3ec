#include "pallasbench/cli/commands.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "detail/command_setup.hpp"
#include "detail/session.hpp"
#include "pallasbench/core/interrupt.hpp"
#include "pallasbench/orchestrate/runner.hpp"
#include "pallasbench/orchestrate/seeds.hpp"
#include "pallasbench/report/artifacts.hpp"

namespace pallasbench {
namespace {

using detail::open_records;
using detail::resumed;
using detail::validate;
using nlohmann::json;

// What `run` and `eval` both do: candidates (the suite's own kernels, or user files) over the
// selected tasks, each record written as it is done, told to the printers.
struct evaluation_plan {
  const evaluation_flags& flags;
  selection_options selection;
  std::vector<std::string> candidate_files;  // absolute; empty: the suite's own kernels
  record_writer* writer = nullptr;           // null: no records file
  std::filesystem::path artifacts_dir;       // beside the records (empty: artifacts go inline)
};

// Over every selected task, recorded ones included: 0 only when all are correct and robust.
int exit_status(const run_outcome& outcome) {
  if (outcome.interrupted) return exit_code::interrupted;
  for (const auto& row : outcome.rows)
    if (!row.passed()) return row.status == task_status::harness_error ? exit_code::harness : exit_code::check_failed;
  return exit_code::ok;
}

candidate_spec user_candidate(const json& facts, const std::string& path) {
  return {candidate_kind::user,
          path,
          facts.value("sha256", ""),
          facts.value("source", ""),
          facts.value("bundled_source", ""),
          facts.value("encoding", ""),
          facts.value("refused", "")};
}

int evaluate(const evaluation_plan& plan, printer& out) {
  const bool suite = plan.candidate_files.empty();
  auto s = detail::open_session({plan.flags.device, plan.candidate_files,
                                 suite ? candidate_kind::suite : candidate_kind::user, plan.flags.max_source_bytes,
                                 plan.flags.timeout_s, detail::compile_cache_dir(plan.flags)});
  const auto tasks = detail::select(s.tasks, plan.selection);
  const auto recorded = resumed(plan.flags, plan.writer);
  detail::describe_device(s, plan.flags);
  const auto config = detail::make_config(plan.flags, s.device);
  const scratch_dir scratch;
  evaluator eval(*s.pool, scratch, config, detail::make_timing(plan.flags, s), s.environment, s.project_sha,
                 utc_timestamp());
  eval.set_artifacts({plan.flags.artifacts, plan.flags.pass_trail, plan.artifacts_dir});
  const std::string records = plan.writer ? plan.writer->path().string() : "";
  out.run_started({tasks.size(), config.size_name(), std::string(to_string(s.device)),
                   s.environment.value("device_kind", "?"), records});
  runner r(eval, plan.writer, recorded, out);
  run_outcome all;
  const std::size_t runs = suite ? 1 : plan.candidate_files.size();
  for (std::size_t i = 0; i < runs && !all.interrupted; ++i) {
    std::optional<candidate_spec> spec;
    if (!suite) {
      spec = user_candidate(s.candidates.value(plan.candidate_files[i], json::object()), plan.candidate_files[i]);
      s.pool->keep_spare_tracer(i + 1 < runs);  // the next candidate's tracer starts meanwhile
    }
    auto outcome = r.run(
        tasks,
        [&](const task_info& t) {
          if (spec) return *spec;
          candidate_spec own;  // the task's own kernel (candidate_kind::suite)
          own.sha256 = t.sha256;
          return own;
        },
        config);
    for (auto& row : outcome.rows) all.rows.push_back(std::move(row));
    all.recorded += outcome.recorded;
    all.interrupted = outcome.interrupted;
  }
  out.run_finished(all.rows, {all.recorded, all.interrupted, records});
  return exit_status(all);
}

}  // namespace

int list_command(const list_options& options) {
  auto s = detail::open_session({device_choice::cpu, {}, std::nullopt, k_default_max_source_bytes, 300});
  const auto tasks = detail::select(s.tasks, options.selection);
  if (options.json) {
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
  printer_list out;
  out.add(std::make_unique<progress_printer>(std::cout, true))
      .add(std::make_unique<summary_printer>(std::cout, options.format, options.summary));
  return evaluate({options.flags, options.selection, {}, writer.get(), writer->path().parent_path()}, out);
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
  // Records (--json) on stdout; for the reader, progress and the table beside them on stderr.
  printer_list out;
  if (options.json) out.add(std::make_unique<record_lines_printer>(std::cout));
  out.add(std::make_unique<progress_printer>(std::cerr, false))
      .add(std::make_unique<summary_printer>(std::cerr, summary_format::table));
  // Without --out there is no folder for artifact files: they go inline.
  return evaluate({options.flags, {{options.task}, std::nullopt, ""}, paths, writer.get(),
                   options.flags.out.empty() ? std::filesystem::path{} : std::filesystem::path(options.flags.out)},
                  out);
}

int artifacts_command(const artifacts_options& options) {
  auto s = detail::open_session({options.device, {}, std::nullopt, k_default_max_source_bytes, 300});
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

int report_command(const report_options& options) {
  std::vector<summary_row> rows;
  std::map<std::pair<std::string, std::string>, std::size_t> index;  // (task, size) -> row
  for (const auto& file : options.records) {
    if (!std::ifstream(file)) throw usage_error(fmt::format("cannot read records file {}", file));
    std::vector<json> records;
    try {
      records = read_records(file, &std::cerr);  // a cut last line is skipped with a warning
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
    } catch (const std::invalid_argument& e) {  // a record of no known status
      throw usage_error(fmt::format("{}: {}", file, e.what()));
    } catch (const std::runtime_error& e) {  // a corrupt line (the message names file:line)
      throw usage_error(e.what());
    }
  }
  summary_printer(std::cout, options.format, options.summary).run_finished(rows, {});
  return exit_code::ok;
}

}  // namespace pallasbench
