// Running a list of tasks: progress, records, resume, Ctrl-C.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pallasbench/orchestrate/evaluator.hpp"
#include "pallasbench/record/jsonl.hpp"
#include "pallasbench/report/printer.hpp"

namespace pallasbench {

struct run_outcome {
  std::vector<summary_row> rows;  // every selected task: evaluated now, or recorded before (--resume)
  std::vector<nlohmann::json> records;
  std::size_t recorded = 0;  // rows taken from the records file, not evaluated again
  bool interrupted = false;
};

class runner {
public:
  using candidate_for = std::function<candidate_spec(const task_info&)>;

  // `writer` may be null (nothing recorded on disk); `recorded` holds the records file's records
  // by config hash (--resume): those tasks are not evaluated again, and their records count in
  // the outcome (and the exit status) as they stand.
  // `out` hears of each task as it finishes (progress lines, record lines: report/printer.hpp).
  runner(evaluator& eval, record_writer* writer, std::map<std::string, nlohmann::json> recorded, printer& out)
      : m_eval(eval), m_writer(writer), m_recorded(std::move(recorded)), m_out(out) {}

  // Evaluates each task in turn; each finished record is written before the next task starts.
  // Ctrl-C stops after the task in flight is abandoned (it gets no record).
  run_outcome run(const std::vector<task_info>& tasks, const candidate_for& candidate, const run_config& config);

private:
  evaluator& m_eval;
  record_writer* m_writer;
  std::map<std::string, nlohmann::json> m_recorded;
  printer& m_out;
};

}  // namespace pallasbench
