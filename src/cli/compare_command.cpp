// `pallasbench compare BASE NEW` (report/compare.hpp does the work) and `compare --task T A.py
// [B.py]`, which evaluates both sides in one run first.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string_view>
#include <tuple>
#include <utility>

#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "detail/command_setup.hpp"
#include "detail/python_tool.hpp"
#include "pallasbench/cli/commands.hpp"
#include "pallasbench/orchestrate/paths.hpp"
#include "pallasbench/report/compare.hpp"

namespace pallasbench {
namespace {

using nlohmann::json;
using runs = std::vector<std::vector<json>>;

// One run's records, read as `report` reads them (detail::load_records).
std::vector<json> load(const std::string& argument) { return detail::load_records({argument}); }

// A side's runs: one records file or folder, or several comma-separated.
runs load_side(const std::string& argument, int repetitions, std::string_view which) {
  runs out;
  std::string_view rest = argument;
  while (true) {
    const auto comma = rest.find(',');
    const auto part = rest.substr(0, comma);
    if (part.empty()) throw usage_error(fmt::format("{} '{}': an empty name in the list", which, argument));
    out.push_back(load(std::string(part)));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  if (repetitions > 0 && static_cast<int>(out.size()) != repetitions)
    throw usage_error(
        fmt::format("--repetitions {}: {} gives {} run(s) ({})", repetitions, which, out.size(), argument));
  return out;
}

// The suite's kernel of `task`: its task file, evaluated as a candidate.
std::string suite_task_file(const std::string& task) {
  for (const auto level : {"level1", "level2", "level3"}) {
    const auto path = project_root() / "tasks" / level / (task + ".py");
    if (std::filesystem::is_regular_file(path)) return path.string();
  }
  throw usage_error(fmt::format("--task {}: no such task file under {}/tasks (see `pallasbench list`)", task,
                                project_root().string()));
}

// A folder of our own for the records of compare --task without --out, removed afterwards.
struct scratch_records {
  std::filesystem::path path;
  bool owned = false;
  explicit scratch_records(const std::string& out) {
    if (!out.empty()) {
      path = out;
      return;
    }
    path = std::filesystem::temp_directory_path() / fmt::format("pallasbench-compare-{}", ::getpid());
    std::filesystem::remove_all(path);
    owned = true;
  }
  scratch_records(const scratch_records&) = delete;
  scratch_records& operator=(const scratch_records&) = delete;
  ~scratch_records() {
    std::error_code ec;
    if (owned) std::filesystem::remove_all(path, ec);
  }
};

// BASE and NEW evaluated N times each in one run of one lane, in the order A B B A A B ... (a linear
// drift of the machine adds the same to both sides); each evaluation is one run of its side.
// Empty sides when the run was interrupted (Ctrl-C): nothing to compare.
std::pair<runs, runs> evaluate_sides(const compare_options& options) {
  if (options.flags.shard) throw usage_error("compare --task: --shard splits a run; both sides must run in this one");
  if (options.flags.resume) throw usage_error("compare --task: --resume would reuse old timings; each run is fresh");
  const auto base = options.next.empty() ? suite_task_file(options.task) : options.base;
  const auto next = options.next.empty() ? options.base : options.next;
  const int n = options.repetitions > 0 ? options.repetitions : k_default_task_repetitions;
  eval_options e;
  e.task = options.task;
  e.flags = options.flags;
  e.flags.jobs = 1;  // one lane: the series follow each other in the order given
  if (e.flags.sizes.size() > 1 || e.flags.dtypes.size() > 1)
    throw usage_error("compare --task: one --size and one --dtype (a sweep compares nothing twice)");
  for (int i = 0; i < n; ++i) {
    const bool base_first = i % 2 == 0;
    e.candidates.push_back(base_first ? base : next);
    e.candidates.push_back(base_first ? next : base);
  }
  const scratch_records folder(options.flags.out);
  e.flags.out = folder.path.string();
  fmt::print(std::cerr, "compare --task {}: BASE {}, NEW {}, {} evaluation(s) each, alternating\n", options.task, base,
             next, n);
  if (eval_command(e) == exit_code::interrupted) return {};
  auto records = load(folder.path.string());
  const auto expected = static_cast<std::size_t>(2 * n);
  if (records.size() != expected)
    throw std::runtime_error(fmt::format("compare --task: {} holds {} record(s), not the {} asked for",
                                         (folder.path / "records.jsonl").string(), records.size(), expected));
  std::pair<runs, runs> sides;
  for (std::size_t i = 0; i < expected; ++i) {
    auto& record = records[i];
    // Two candidates of one task are one row: the join ignores which file each side was.
    if (record.contains("candidate") && record["candidate"].is_object()) record["candidate"]["sha256"] = "";
    const bool base_first = (i / 2) % 2 == 0;
    const bool is_base = (i % 2 == 0) == base_first;
    (is_base ? sides.first : sides.second).push_back({std::move(record)});
  }
  return sides;
}

}  // namespace

int compare_command(const compare_options& options) {
  if (!(options.threshold >= 0)) throw usage_error(fmt::format("--threshold must be >= 0, not {}", options.threshold));
  const comparison_options how{.threshold = options.threshold, .alpha = options.alpha};
  runs base, next;
  if (!options.task.empty()) {
    std::tie(base, next) = evaluate_sides(options);
    if (base.empty()) return exit_code::interrupted;
  } else {
    if (options.next.empty()) throw usage_error("compare: give BASE and NEW (or --task T with candidate files)");
    base = load_side(options.base, options.repetitions, "BASE");
    next = load_side(options.next, options.repetitions, "NEW");
  }
  const auto result = compare_runs(base, next, how);
  auto j = result.to_json();
  j["threshold"] = options.threshold;
  j["alpha"] = options.alpha;
  if (options.json)
    fmt::print("{}\n", j.dump(2));
  else
    print_compare_markdown(std::cout, result);
  const int code = result.regressed() ? exit_code::check_failed : exit_code::ok;
  if (!options.html.empty()) {
    // The page draws this very comparison's rows (its JSON on the tool's stdin): no number is
    // computed twice. The tool exits with compare's code once the page is written.
    std::cout.flush();
    std::fflush(stdout);
    const bool against_suite = !options.task.empty() && options.next.empty();
    const auto base_label = against_suite ? fmt::format("the suite's kernel of {}", options.task) : options.base;
    const auto new_label = against_suite ? options.base : options.next;
    exec_python_tool("compare_html",
                     {"--out=" + options.html, "--compare=-", "--base=" + base_label, "--new=" + new_label,
                      "--exit-code=" + std::to_string(code)},
                     j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  }
  return code;
}

}  // namespace pallasbench
