#include "pallasbench/summary.hpp"

#include <map>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace pallasbench {
namespace {

using nlohmann::json;

std::optional<double> number_at(const json& j, const json::json_pointer& ptr) {
  if (!j.contains(ptr) || !j[ptr].is_number()) return std::nullopt;
  return j[ptr].get<double>();
}

std::string format_us(const std::optional<double>& us) {
  if (!us) return "-";
  if (*us >= 1e6) return fmt::format("{:.2f} s", *us / 1e6);
  if (*us >= 1e3) return fmt::format("{:.2f} ms", *us / 1e3);
  return fmt::format("{:.1f} us", *us);
}

std::string format_error(const std::optional<double>& e) { return e ? fmt::format("{:.2e}", *e) : "-"; }
std::string format_robust(const std::optional<bool>& r) { return r ? (*r ? "yes" : "no") : "-"; }
std::string format_ratio(const std::optional<double>& r) { return r ? fmt::format("{:.2f}x", *r) : "-"; }

std::string first_line(const std::string& text, std::size_t limit) {
  auto line = text.substr(0, text.find('\n'));
  return line.size() > limit ? line.substr(0, limit - 3) + "..." : line;
}

}  // namespace

std::optional<double> summary_row::ratio() const {
  if (device == "cpu" || !kernel_us || !reference_us || *kernel_us <= 0) return std::nullopt;
  return *reference_us / *kernel_us;
}

summary_row summary_row::from_record(const json& record) {
  summary_row row;
  row.task = record.value("kernel_name", "?");
  row.level = record.value("level", 0);
  row.size = record.value("size", "?");
  row.status = record.value("status", "?");
  if (record.contains("config") && record["config"].is_object()) row.device = record["config"].value("device", "");
  if (const auto ptr = "/result/robustness_passed"_json_pointer; record.contains(ptr) && record[ptr].is_boolean())
    row.robust = record[ptr].get<bool>();
  row.max_abs_error = number_at(record, "/result/max_abs_error"_json_pointer);
  row.kernel_us = number_at(record, "/timing/median_us"_json_pointer);
  row.reference_us = number_at(record, "/timing/reference_median_us"_json_pointer);
  if (record.contains("timing") && record["timing"].is_object()) row.timer = record["timing"].value("timer", "");
  if (record.contains("error") && record["error"].is_object()) row.message = record["error"].value("message", "");
  return row;
}

void table_printer::print(std::ostream& out, const std::vector<summary_row>& rows) const {
  std::size_t width = 4;
  for (const auto& r : rows) width = std::max(width, r.task.size());
  fmt::print(out, "{:<{}}  {:<6}  {:<13}  {:<6}  {:>9}  {:>10}  {:>10}  {:>7}  {}\n", "task", width, "size",
             "status", "robust", "max|err|", "kernel", "xla ref", "ratio", "note");
  std::map<std::string, int> counts;
  for (const auto& r : rows) {
    ++counts[r.status];
    fmt::print(out, "{:<{}}  {:<6}  {:<13}  {:<6}  {:>9}  {:>10}  {:>10}  {:>7}  {}\n", r.task, width, r.size,
               r.status, format_robust(r.robust), format_error(r.max_abs_error), format_us(r.kernel_us),
               format_us(r.reference_us), format_ratio(r.ratio()), first_line(r.message, 80));
  }
  std::string tally;
  for (const auto& [status, n] : counts) tally += fmt::format("{}{} {}", tally.empty() ? "" : ", ", n, status);
  fmt::print(out, "{} tasks: {}\n", rows.size(), tally.empty() ? "none" : tally);
  if (!rows.empty() && !rows.front().timer.empty())
    fmt::print(out, "times: median per call, timer '{}'; ratio = xla ref / kernel\n", rows.front().timer);
}

void markdown_printer::print(std::ostream& out, const std::vector<summary_row>& rows) const {
  fmt::print(out, "| task | level | size | status | robust | max abs error | kernel | XLA reference | ratio (ref/kernel) |\n");
  fmt::print(out, "|---|---|---|---|---|---|---|---|---|\n");
  for (const auto& r : rows)
    fmt::print(out, "| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", r.task, r.level, r.size, r.status,
               format_robust(r.robust), format_error(r.max_abs_error), format_us(r.kernel_us),
               format_us(r.reference_us), format_ratio(r.ratio()));
}

std::unique_ptr<summary_printer> make_printer(const std::string& format) {
  if (format == "table") return std::make_unique<table_printer>();
  if (format == "markdown") return std::make_unique<markdown_printer>();
  throw std::invalid_argument(fmt::format("unknown summary format '{}' (table, markdown)", format));
}

std::string progress_line(std::size_t index, std::size_t total, const summary_row& row, double seconds) {
  std::string detail;
  if (row.status == "ok")
    detail = fmt::format("robust {}  max|err| {}  kernel {}  xla {}", format_robust(row.robust),
                         format_error(row.max_abs_error), format_us(row.kernel_us), format_us(row.reference_us));
  else
    detail = first_line(row.message, 100);
  return fmt::format("[{}/{}] {} ({}) {}  {}  {:.1f} s", index, total, row.task, row.size, row.status, detail, seconds);
}

}  // namespace pallasbench
