#include "pallasbench/orchestrate/runner.hpp"

#include <chrono>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "pallasbench/core/interrupt.hpp"

namespace pallasbench {

run_outcome runner::run(const std::vector<task_info>& tasks, const candidate_for& candidate, const run_config& config) {
  run_outcome outcome;
  const auto& size = config.size;
  std::size_t index = 0;
  for (const auto& task : tasks) {
    ++index;
    const auto spec = candidate(task);
    if (const auto it = m_recorded.find(config_hash(task.name, spec.sha256, config)); it != m_recorded.end()) {
      auto row = summary_row::from_record(it->second);
      row.recorded = true;
      fmt::print(m_progress, "[{}/{}] {} ({}) recorded before: {}\n", index, tasks.size(), task.name, size, row.status);
      ++outcome.recorded;
      outcome.rows.push_back(std::move(row));
      outcome.records.push_back(it->second);
      continue;
    }
    if (interrupted()) {
      outcome.interrupted = true;
      break;
    }
    const auto start = std::chrono::steady_clock::now();
    task_result result;
    try {
      result = m_eval.evaluate(task, spec);
    } catch (const interrupted_error&) {
      outcome.interrupted = true;
      fmt::print(m_progress, "[{}/{}] {} ({}) interrupted: no record\n", index, tasks.size(), task.name, size);
      break;
    }
    auto record = to_record(result);
    if (m_writer) {
      try {
        m_writer->append(record);
      } catch (const record_write_error& e) {
        throw record_write_error(
            fmt::format("task '{}' ({}): {}; stopping, as no later record could be kept", task.name, size, e.what()));
      }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    auto row = summary_row::from_record(record);
    fmt::print(m_progress, "{}\n", progress_line(index, tasks.size(), row, seconds));
    m_progress.flush();
    outcome.rows.push_back(std::move(row));
    outcome.records.push_back(std::move(record));
  }
  return outcome;
}

}  // namespace pallasbench
