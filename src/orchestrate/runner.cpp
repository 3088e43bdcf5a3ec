#include "pallasbench/orchestrate/runner.hpp"

#include <chrono>

#include <fmt/format.h>

#include "pallasbench/core/interrupt.hpp"
#include "pallasbench/orchestrate/task_record.hpp"

namespace pallasbench {

run_outcome runner::run(const std::vector<task_info>& tasks, const candidate_for& candidate, const run_config& config) {
  run_outcome outcome;
  const auto size = config.size_name();
  std::size_t index = 0;
  for (const auto& task : tasks) {
    ++index;
    const auto spec = candidate(task);
    if (const auto it = m_recorded.find(config_hash(task.name, spec.sha256, config)); it != m_recorded.end()) {
      auto row = summary_row::from_record(it->second);
      row.recorded = true;
      m_out.task_finished({index, tasks.size(), task_event::recorded_before, 0, task.name, size}, &row, &it->second);
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
      m_out.task_finished({index, tasks.size(), task_event::interrupted, 0, task.name, size}, nullptr, nullptr);
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
    m_out.task_finished({index, tasks.size(), task_event::evaluated, seconds, task.name, size}, &row, &record);
    outcome.rows.push_back(std::move(row));
    outcome.records.push_back(std::move(record));
  }
  return outcome;
}

}  // namespace pallasbench
