#include "pallasbench/report/summary.hpp"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include "detail/cells.hpp"
#include "pallasbench/record/record.hpp"

namespace pallasbench {
namespace {

using nlohmann::json;

using detail::format_us;
using detail::number_at;

std::string format_error(const std::optional<double>& e) { return e ? fmt::format("{:.2e}", *e) : "-"; }
std::string format_robust(const std::optional<bool>& r) { return r ? (*r ? "yes" : "no") : "-"; }
std::string format_ratio(const std::optional<double>& r) { return r ? fmt::format("{:.2f}x", *r) : "-"; }

// error.lowering as the lines under a failure's progress line.
std::vector<std::string> lowering_lines(const json& lowering) {
  if (!lowering.is_object()) return {};
  const auto text = [&](const char* key) {
    return lowering.contains(key) && lowering[key].is_string() ? lowering[key].get<std::string>() : std::string();
  };
  std::vector<std::string> lines;
  if (const auto backend = text("backend"); !backend.empty()) {
    const auto name = backend == "mosaic_gpu" ? std::string("Mosaic GPU") : backend == "triton" ? "Triton" : backend;
    const auto why = text("chosen_by");
    lines.push_back(fmt::format("backend: {}{}", name, why.empty() ? "" : " - " + why));
  }
  if (const auto at = text("candidate_line"); !at.empty()) lines.push_back("at: " + at);
  if (lowering.contains("fixes") && lowering["fixes"].is_array())
    for (const auto& fix : lowering["fixes"])
      if (fix.is_string()) lines.push_back("fix: " + fix.get<std::string>());
  return lines;
}

// The first failed case's hint and worst elements (correctness.seeds[]/stress[]: worst, hint) as
// the lines under an incorrect record's progress line: where it differs, by how much, and why.
std::vector<std::string> mismatch_lines(const json& record) {
  const auto ptr = "/correctness"_json_pointer;
  if (!record.contains(ptr) || !record[ptr].is_object()) return {};
  // A NaN/Inf is left out of the record (no field is ever null): "nan/inf" here.
  const auto cell = [](const json& v) { return v.is_number() ? fmt::format("{:.6g}", v.get<double>()) : "nan/inf"; };
  for (const char* cases : {"seeds", "stress"}) {
    const auto& all = record[ptr].value(cases, json::array());
    for (const auto& c : all) {
      if (!c.is_object() || c.value("passed", true)) continue;
      std::vector<std::string> lines;
      if (const auto hint = c.value("hint", std::string()); !hint.empty()) lines.push_back("hint: " + hint);
      const auto& worst = c.value("worst", json::array());
      if (!worst.empty())
        lines.push_back(fmt::format("{:<16}  {:>13}  {:>13}  {:>11}", "index", "candidate", "reference", "|error|"));
      for (const auto& w : worst)
        lines.push_back(fmt::format(
            "{:<16}  {:>13}  {:>13}  {:>11}",
            fmt::format("[{}]", fmt::join(w.value("index", json::array()).get<std::vector<std::int64_t>>(), ", ")),
            cell(w.value("candidate", json())), cell(w.value("reference", json())),
            w.contains("error") ? cell(w["error"]) : "inf"));
      return lines;
    }
  }
  return {};
}

std::string format_bytes(std::int64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  return bytes % 1024 == 0 ? fmt::format("{} KiB", bytes / 1024) : fmt::format("{:.1f} KiB", bytes / 1024.0);
}

// The distinct values of a per-kernel number, in kernel order, joined with '/'; "-" when none is known.
std::string distinct(const json& kernels, const char* key, std::string (*format)(std::int64_t)) {
  std::vector<std::int64_t> seen;
  for (const auto& k : kernels) {
    if (!k.contains(key) || !k[key].is_number_integer()) continue;
    const auto value = k[key].get<std::int64_t>();
    if (std::find(seen.begin(), seen.end(), value) == seen.end()) seen.push_back(value);
  }
  std::string cell;
  for (const auto v : seen) cell += (cell.empty() ? "" : "/") + format(v);
  return cell.empty() ? "-" : cell;
}

std::string widest_load_cell(const json& kernels) {
  std::optional<std::int64_t> widest;
  bool tma = false;
  for (const auto& k : kernels) {
    if (k.contains("widest_global_load_bytes") && k["widest_global_load_bytes"].is_number_integer())
      widest = std::max(widest.value_or(0), k["widest_global_load_bytes"].get<std::int64_t>());
    tma = tma || (k.contains("tma_loads") && k["tma_loads"].is_number_integer() && k["tma_loads"].get<int>() > 0);
  }
  return widest ? std::to_string(*widest) : tma ? "tma" : "-";
}

std::string compiler_header_cells(const char* format) {
  return fmt::format(fmt::runtime(format), "regs", "spills", "tensor-core", "ld width", "threads", "smem");
}

std::string compiler_row_cells(const char* format, const compiler_cells& c) {
  return fmt::format(fmt::runtime(format), c.registers, c.spills, c.tensor_core, c.load_width, c.threads,
                     c.shared_memory);
}

// Rows the records file supplied are marked: the reader must know they were not run now.
std::string note(const summary_row& r) {
  const auto message = first_line(r.message, 80);
  if (!r.recorded) return message;
  return message.empty() ? "(recorded before)" : "(recorded before) " + message;
}

// "2 of 3 passed (ok and robust)": the rows' own verdicts, counted.
std::string passed_tally(const std::vector<summary_row>& rows) {
  const auto n = std::count_if(rows.begin(), rows.end(), [](const summary_row& r) { return r.passed; });
  return fmt::format("{} of {} passed (ok and robust)", n, rows.size());
}

// A sweep's rows passed per size and dtype (the size cell names both), in the order met:
// "small: 3 of 3 passed; medium/bfloat16: 2 of 3 passed". Empty for a run of one size and dtype.
std::string sweep_tally(const std::vector<summary_row>& rows) {
  std::vector<std::pair<std::string, std::pair<int, int>>> groups;  // size cell, (passed, rows)
  for (const auto& r : rows) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == r.size; });
    if (it == groups.end()) it = groups.insert(groups.end(), {r.size, {0, 0}});
    it->second.first += r.passed;
    ++it->second.second;
  }
  if (groups.size() < 2) return "";
  std::string line;
  for (const auto& [size, counts] : groups)
    line += fmt::format("{}{}: {} of {} passed", line.empty() ? "" : "; ", size, counts.first, counts.second);
  return line + "\n";
}

std::string recorded_tally(const std::vector<summary_row>& rows) {
  const auto n = std::count_if(rows.begin(), rows.end(), [](const summary_row& r) { return r.recorded; });
  return n ? fmt::format(" ({} from the records file, not run again)", n) : "";
}

// "3 tasks"; "4 candidates of 1 task" when every row is a user's candidate (an eval); else "5
// records of 2 tasks" when a task has several rows (candidates beside the suite's kernels, sizes,
// dtypes, backends, repeated runs).
std::string count_rows(const std::vector<summary_row>& rows) {
  std::set<std::string> tasks;
  bool candidates = !rows.empty();
  for (const auto& r : rows) {
    tasks.insert(r.task);
    candidates = candidates && !r.candidate.empty();
  }
  const auto plural = [](std::size_t n, std::string_view what) {
    return fmt::format("{} {}{}", n, what, n == 1 ? "" : "s");
  };
  if (candidates) return fmt::format("{} of {}", plural(rows.size(), "candidate"), plural(tasks.size(), "task"));
  if (tasks.size() == rows.size()) return fmt::format("{} tasks", rows.size());
  return fmt::format("{} of {}", plural(rows.size(), "record"), plural(tasks.size(), "task"));
}

constexpr const char* k_table_compiler = "{:>4}  {:<6}  {:<11}  {:>8}  {:>7}  {:>8}  ";
constexpr const char* k_markdown_compiler = " {} | {} | {} | {} | {} | {} |";

}  // namespace

std::string first_line(const std::string& text, std::size_t limit) {
  auto line = text.substr(0, text.find('\n'));
  if (line.size() <= limit) return line;
  const auto room = limit > 3 ? limit - 3 : 0;
  const auto space = line.rfind(' ', room);
  const auto cut = space != std::string::npos && space >= room / 2 ? space : room;
  return line.substr(0, cut) + "...";
}

summary_row summary_row::from_record(const json& record) {
  summary_row row;
  row.task = record.value("kernel_name", "?");
  row.level = record.value("level", 0);
  row.size = record.value("size", "?");
  // A low-precision row names its dtype beside the size ("small/bfloat16"): one task's float32
  // and bfloat16 rows are different rows.
  if (const auto dtype = record.value("dtype", "float32"); dtype != "float32") row.size += "/" + dtype;
  // As run_config::label names it: Mosaic GPU beside the size, Triton (every task's) unnamed.
  if (const auto ptr = "/config/backend"_json_pointer; record.contains(ptr) && record[ptr] == "mosaic_gpu")
    row.size += "/mosaic_gpu";
  row.status = parse_enum<task_status>(record.value("status", "?"));
  if (const auto ptr = "/result/robustness_passed"_json_pointer; record.contains(ptr) && record[ptr].is_boolean())
    row.robust = record[ptr].get<bool>();
  row.passed = record_passed(record);
  row.speedup = record_speedup(record);
  row.max_abs_error = number_at(record, "/result/max_abs_error"_json_pointer);
  row.kernel_us = number_at(record, "/timing/median_us"_json_pointer);
  row.reference_us = number_at(record, "/timing/reference_median_us"_json_pointer);
  if (record.contains("timing") && record["timing"].is_object()) row.timer = record["timing"].value("timer", "");
  if (record.contains("error") && record["error"].is_object()) {
    row.message = record["error"].value("message", "");
    if (record["error"].contains("lowering")) row.lowering = lowering_lines(record["error"]["lowering"]);
  }
  if (row.status == task_status::incorrect) row.mismatch = mismatch_lines(record);
  row.candidate = detail::candidate_name(record);
  if (const auto ptr = "/artifacts/summary"_json_pointer; record.contains(ptr) && record[ptr].is_object())
    row.compiler = compiler_cells::from_summary(record[ptr]);
  return row;
}

compiler_cells compiler_cells::from_summary(const json& summary) {
  compiler_cells cells;
  if (summary.contains("max_registers") && summary["max_registers"].is_number_integer())
    cells.registers = std::to_string(summary["max_registers"].get<std::int64_t>());
  if (summary.contains("spills") && summary["spills"].is_boolean())
    cells.spills = summary["spills"].get<bool>() ? "yes" : "no";
  if (summary.contains("tensor_core") && summary["tensor_core"].is_string())
    cells.tensor_core = summary["tensor_core"].get<std::string>();
  const json kernels =
      summary.contains("kernels") && summary["kernels"].is_array() ? summary["kernels"] : json::array();
  cells.load_width = widest_load_cell(kernels);
  cells.threads = distinct(kernels, "threads_per_block", [](std::int64_t v) { return std::to_string(v); });
  cells.shared_memory = distinct(kernels, "shared_memory_bytes", format_bytes);
  return cells;
}

void print_table(std::ostream& out, const std::vector<summary_row>& rows, const summary_options& options) {
  std::size_t width = 4, size_width = 6, candidate_width = 0;
  for (const auto& r : rows) {
    width = std::max(width, r.task.size());
    size_width = std::max(size_width, r.size.size());
    if (!r.candidate.empty()) candidate_width = std::max(candidate_width, std::max<std::size_t>(r.candidate.size(), 9));
  }
  // The candidate column is there when a row is a user candidate ("suite" names the task's own kernel).
  const auto candidate = [&](const summary_row* r) {
    if (candidate_width == 0) return std::string();
    return fmt::format("{:<{}}  ", r ? (r->candidate.empty() ? "suite" : r->candidate) : "candidate", candidate_width);
  };
  const auto compiler = [&](const compiler_cells* c) {
    if (!options.show_compiler) return std::string();
    return c ? compiler_row_cells(k_table_compiler, *c) : compiler_header_cells(k_table_compiler);
  };
  fmt::print(out, "{:<{}}  {:<{}}  {}{:<13}  {:<6}  {:>9}  {:>10}  {:>10}  {:>7}  {}{}\n", "task", width, "size",
             size_width, candidate(nullptr), "status", "robust", "max|err|", "kernel", "xla ref", "ratio",
             compiler(nullptr), "note");
  std::map<std::string, int> counts;
  for (const auto& r : rows) {
    ++counts[std::string(to_string(r.status))];
    fmt::print(out, "{:<{}}  {:<{}}  {}{:<13}  {:<6}  {:>9}  {:>10}  {:>10}  {:>7}  {}{}\n", r.task, width, r.size,
               size_width, candidate(&r), to_string(r.status), format_robust(r.robust), format_error(r.max_abs_error),
               format_us(r.kernel_us), format_us(r.reference_us), format_ratio(r.speedup), compiler(&r.compiler),
               note(r));
  }
  std::string tally;
  for (const auto& [status, n] : counts) tally += fmt::format("{}{} {}", tally.empty() ? "" : ", ", n, status);
  fmt::print(out, "{}: {}{}\n{}\n{}", count_rows(rows), tally.empty() ? "none" : tally, recorded_tally(rows),
             passed_tally(rows), sweep_tally(rows));
  if (!rows.empty() && !rows.front().timer.empty())
    fmt::print(out, "times: median per call, timer '{}'; ratio = xla ref / kernel\n", rows.front().timer);
}

void print_markdown(std::ostream& out, const std::vector<summary_row>& rows, const summary_options& options) {
  const bool compiler = options.show_compiler;
  // A candidate column, as in the text table, when a row is a user candidate.
  const bool candidates =
      std::any_of(rows.begin(), rows.end(), [](const summary_row& r) { return !r.candidate.empty(); });
  fmt::print(
      out,
      "| task | level | size |{} status | robust | max abs error | kernel | XLA reference | ratio (ref/kernel) |{}\n",
      candidates ? " candidate |" : "", compiler ? compiler_header_cells(k_markdown_compiler) : "");
  fmt::print(out, "|---|---|---|{}---|---|---|---|---|---|{}\n", candidates ? "---|" : "",
             compiler ? "---|---|---|---|---|---|" : "");
  for (const auto& r : rows)
    fmt::print(out, "| {} | {} | {} |{} {} | {} | {} | {} | {} | {} |{}\n", r.task, r.level, r.size,
               candidates ? fmt::format(" {} |", r.candidate.empty() ? "suite" : r.candidate) : "",
               r.recorded ? fmt::format("{} (recorded)", to_string(r.status)) : std::string(to_string(r.status)),
               format_robust(r.robust), format_error(r.max_abs_error), format_us(r.kernel_us),
               format_us(r.reference_us), format_ratio(r.speedup),
               compiler ? compiler_row_cells(k_markdown_compiler, r.compiler) : "");
  fmt::print(out, "\n{}{}\n", passed_tally(rows), recorded_tally(rows));
}

std::string progress_line(std::size_t index, std::size_t total, const summary_row& row, double seconds) {
  std::string detail;
  if (row.status == task_status::ok)
    detail = fmt::format("robust {}  max|err| {}  kernel {}  xla {}", format_robust(row.robust),
                         format_error(row.max_abs_error), format_us(row.kernel_us), format_us(row.reference_us));
  else
    detail = first_line(row.message, 100);
  auto line = fmt::format("[{}/{}] {} ({}){} {}  {}  {:.1f} s", index, total, row.task, row.size,
                          row.candidate.empty() ? "" : " " + row.candidate, to_string(row.status), detail, seconds);
  for (const auto& l : row.mismatch) line += "\n    " + l;
  if (row.lowering.empty()) return line;
  for (std::size_t at = 0; at <= row.message.size();) {  // the message whole, each of its lines
    const auto end = std::min(row.message.find('\n', at), row.message.size());
    line += "\n    " + row.message.substr(at, end - at);
    at = end + 1;
  }
  for (const auto& l : row.lowering) line += "\n    " + l;
  return line;
}

}  // namespace pallasbench
