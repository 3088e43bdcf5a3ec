// What a run tells its readers as it goes and when it ends, behind one interface (nvbench's
// printer_base, google-benchmark's BenchmarkReporter): a non-virtual face with one private hook
// per event, so that progress lines, summary tables and record lines can be combined freely.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pallasbench/report/summary.hpp"

namespace pallasbench {

struct run_header {
  std::size_t tasks = 0;
  std::string size, device, device_kind, records;
  std::size_t lanes = 1, devices = 1;  // evaluating at once, over how many devices
};

enum class task_event { evaluated, recorded_before, interrupted };

struct task_progress {
  std::size_t index = 0, total = 0;  // 1-based position in the run's selection
  task_event event = task_event::evaluated;
  double seconds = 0;
  std::string task, size;  // for interrupted, which has no row
};

// A lane busy with a job at one instant, as a live progress line shows it.
struct lane_activity {
  std::size_t lane = 0;
  std::string task;   // "softmax (small)"
  std::string phase;  // a work phase's name (the record's `phases` keys less "_s"); empty: between phases
};

struct run_totals {
  std::size_t recorded = 0;  // rows taken from the records file
  bool interrupted = false;
  std::string records;  // the records file, when there is one
};

class printer {
public:
  virtual ~printer() = default;
  void run_started(const run_header& header) { do_run_started(header); }
  // `row` and `record` are null for an interrupted task (it has neither).
  void task_finished(const task_progress& progress, const summary_row* row, const nlohmann::json* record) {
    do_task_finished(progress, row, record);
  }
  // What the busy lanes are doing, told about ten times a second while the run waits on them.
  void lanes_busy(const std::vector<lane_activity>& busy) { do_lanes_busy(busy); }
  void run_finished(const std::vector<summary_row>& rows, const run_totals& totals) { do_run_finished(rows, totals); }

private:
  virtual void do_run_started(const run_header&) {}
  virtual void do_task_finished(const task_progress&, const summary_row*, const nlohmann::json*) {}
  virtual void do_lanes_busy(const std::vector<lane_activity>&) {}
  virtual void do_run_finished(const std::vector<summary_row>&, const run_totals&) {}
};

// A line as each task finishes ("[3/38] softmax (small) ok  ...  2.3 s"); with `announce`, a
// line naming the run first and a blank line after the last task.
class progress_printer final : public printer {
public:
  progress_printer(std::ostream& out, bool announce) : m_out(out), m_announce(announce) {}

private:
  void do_run_started(const run_header& header) override;
  void do_task_finished(const task_progress& progress, const summary_row* row, const nlohmann::json*) override;
  void do_run_finished(const std::vector<summary_row>&, const run_totals&) override;
  std::ostream& m_out;
  bool m_announce;
};

enum class summary_format { table, markdown };

template <>
struct enum_names<summary_format> {
  static constexpr std::string_view what = "summary format";
  static constexpr std::array entries{
      std::pair{summary_format::table, std::string_view("table")},
      std::pair{summary_format::markdown, std::string_view("markdown")},
  };
};

// The summary of every row once the run ends, then what the records file holds.
class summary_printer final : public printer {
public:
  summary_printer(std::ostream& out, summary_format format, summary_options options = {})
      : m_out(out), m_format(format), m_options(options) {}

private:
  void do_run_finished(const std::vector<summary_row>& rows, const run_totals& totals) override;
  std::ostream& m_out;
  summary_format m_format;
  summary_options m_options;
};

// Each evaluated task's record as one JSON line, as soon as it is done (eval --json).
class record_lines_printer final : public printer {
public:
  explicit record_lines_printer(std::ostream& out) : m_out(out) {}

private:
  void do_task_finished(const task_progress& progress, const summary_row*, const nlohmann::json* record) override;
  std::ostream& m_out;
};

// Where the evaluated tasks' time went, summed over their records' `phases` once the run ends,
// against the run's own wall time (lanes overlap, so the phases may sum to more).
class phase_totals_printer final : public printer {
public:
  explicit phase_totals_printer(std::ostream& out) : m_out(out) {}

private:
  void do_run_started(const run_header& header) override;
  void do_task_finished(const task_progress& progress, const summary_row*, const nlohmann::json* record) override;
  void do_run_finished(const std::vector<summary_row>&, const run_totals&) override;
  std::ostream& m_out;
  nlohmann::json m_totals = nlohmann::json::object();  // phase -> seconds, in the records' key order
  std::size_t m_tasks = 0, m_lanes = 1;
  double m_evaluations_s = 0;                      // sum of the tasks' wall times
  std::chrono::steady_clock::time_point m_start{};  // the run's
};

// Several printers as one, each told every event in the order they were added.
class printer_list final : public printer {
public:
  printer_list& add(std::unique_ptr<printer> p) {
    m_printers.push_back(std::move(p));
    return *this;
  }

private:
  void do_run_started(const run_header& header) override;
  void do_task_finished(const task_progress& progress, const summary_row* row, const nlohmann::json* record) override;
  void do_lanes_busy(const std::vector<lane_activity>& busy) override;
  void do_run_finished(const std::vector<summary_row>& rows, const run_totals& totals) override;
  std::vector<std::unique_ptr<printer>> m_printers;
};

}  // namespace pallasbench
