#include "pallasbench/report/printer.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace pallasbench {

void progress_printer::do_run_started(const run_header& h) {
  if (!m_announce) return;
  fmt::print(m_out, "pallasbench run: {} task(s), size {}, device {} ({}), {} lane(s) over {} device(s), records -> {}\n",
             h.tasks, h.size, h.device, h.device_kind, h.lanes, h.devices, h.records);
}

void progress_printer::do_task_finished(const task_progress& p, const summary_row* row, const nlohmann::json*) {
  switch (p.event) {
    case task_event::recorded_before:
      fmt::print(m_out, "[{}/{}] {} ({}) recorded before: {}\n", p.index, p.total, row->task, row->size,
                 to_string(row->status));
      break;
    case task_event::interrupted:
      fmt::print(m_out, "[{}/{}] {} ({}) interrupted: no record\n", p.index, p.total, p.task, p.size);
      break;
    case task_event::evaluated:
      fmt::print(m_out, "{}\n", progress_line(p.index, p.total, *row, p.seconds));
      break;
  }
  m_out.flush();
}

void progress_printer::do_run_finished(const std::vector<summary_row>&, const run_totals&) {
  if (m_announce) fmt::print(m_out, "\n");
}

void summary_printer::do_run_finished(const std::vector<summary_row>& rows, const run_totals& totals) {
  if (m_format == summary_format::markdown)
    print_markdown(m_out, rows, m_options);
  else
    print_table(m_out, rows, m_options);
  if (totals.recorded)
    fmt::print(m_out, "{} task(s) were recorded before in {}: their records count as they stand\n", totals.recorded,
               totals.records);
  if (totals.interrupted)
    fmt::print(m_out, "interrupted: finished records are in {}; rerun with --resume\n",
               totals.records.empty() ? std::string("no records file (no --out)") : totals.records);
}

void record_lines_printer::do_task_finished(const task_progress&, const summary_row*, const nlohmann::json* record) {
  if (!record) return;
  fmt::print(m_out, "{}\n", record->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  m_out.flush();
}

void phase_totals_printer::do_run_started(const run_header& header) {
  m_lanes = header.lanes;
  m_start = std::chrono::steady_clock::now();
}

void phase_totals_printer::do_task_finished(const task_progress& progress, const summary_row*,
                                            const nlohmann::json* record) {
  if (progress.event != task_event::evaluated || !record || !record->contains("phases")) return;
  const auto& phases = (*record)["phases"];
  if (!phases.is_object()) return;
  ++m_tasks;
  for (const auto& [name, seconds] : phases.items()) {
    if (!seconds.is_number()) continue;
    if (name == "wall_s") {
      m_evaluations_s += seconds.get<double>();
    } else {
      m_totals[name] = m_totals.value(name, 0.0) + seconds.get<double>();
    }
  }
}

void phase_totals_printer::do_run_finished(const std::vector<summary_row>&, const run_totals&) {
  if (m_tasks == 0) return;
  const double run_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
  std::string parts;
  double sum = 0;
  for (const auto& [name, seconds] : m_totals.items()) {
    const double s = seconds.get<double>();
    sum += s;
    parts += fmt::format("{}{} {:.1f} s", parts.empty() ? "" : ", ", name.substr(0, name.size() - 2), s);
  }
  fmt::print(m_out, "where the time went ({} task(s) evaluated): {}; phases {:.1f} s of the evaluations' {:.1f} s\n",
             m_tasks, parts, sum, m_evaluations_s);
  fmt::print(m_out, "run: {:.1f} s of wall time with {} lane(s) ({:.2f}x the evaluations' time overlapped)\n", run_s,
             m_lanes, run_s > 0 ? m_evaluations_s / run_s : 0.0);
}

void printer_list::do_run_started(const run_header& header) {
  for (auto& p : m_printers) p->run_started(header);
}

void printer_list::do_task_finished(const task_progress& progress, const summary_row* row,
                                    const nlohmann::json* record) {
  for (auto& p : m_printers) p->task_finished(progress, row, record);
}

void printer_list::do_lanes_busy(const std::vector<lane_activity>& busy) {
  for (auto& p : m_printers) p->lanes_busy(busy);
}

void printer_list::do_run_finished(const std::vector<summary_row>& rows, const run_totals& totals) {
  for (auto& p : m_printers) p->run_finished(rows, totals);
}

}  // namespace pallasbench
