// Running a list of tasks: progress, records, resume, Ctrl-C.
#pragma once

#include <functional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pallasbench/evaluator.hpp"
#include "pallasbench/jsonl.hpp"
#include "pallasbench/summary.hpp"

namespace pallasbench {

struct run_outcome {
  std::vector<summary_row> rows;  // tasks evaluated in this run
  std::vector<nlohmann::json> records;
  std::size_t skipped = 0;  // already recorded (--resume)
  bool interrupted = false;
};

class runner {
public:
  using candidate_for = std::function<candidate_spec(const task_info&)>;

  // `writer` may be null (nothing recorded on disk); `done` holds config hashes to skip.
  runner(evaluator& eval, record_writer* writer, std::set<std::string> done, std::ostream& progress)
      : m_eval(eval), m_writer(writer), m_done(std::move(done)), m_progress(progress) {}

  // Evaluates each task in turn; each finished record is written before the next task starts.
  // Ctrl-C stops after the task in flight is abandoned (it gets no record).
  run_outcome run(const std::vector<task_info>& tasks, const candidate_for& candidate, const run_config& config);

private:
  evaluator& m_eval;
  record_writer* m_writer;
  std::set<std::string> m_done;
  std::ostream& m_progress;
};

}  // namespace pallasbench
