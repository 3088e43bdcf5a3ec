// Running a list of evaluations over one or more lanes: progress, records, resume, Ctrl-C.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pallasbench/orchestrate/evaluator.hpp"
#include "pallasbench/orchestrate/job_board.hpp"
#include "pallasbench/record/jsonl.hpp"
#include "pallasbench/report/printer.hpp"

namespace pallasbench {

struct run_outcome {
  std::vector<summary_row> rows;  // every selected task: evaluated now, or recorded before (--resume)
  std::vector<nlohmann::json> records;
  std::size_t recorded = 0;  // rows taken from the records file, not evaluated again
  bool interrupted = false;
};

// Records in the order the jobs were given whatever the number of lanes (run, eval), or each as
// soon as it is done (eval --batch: every record carries its request's id).
enum class record_order { selection, completion };

class runner {
public:
  using candidate_for = std::function<candidate_spec(const task_info&)>;

  // `lanes`: evaluators with workers of their own, each evaluating one job at a time in a thread
  // of its own. `writer` may be null (nothing recorded on disk); `recorded` holds the records
  // file's records by config hash (--resume): those jobs are not evaluated again, and their
  // records count in the outcome (and the exit status) as they stand. `out` hears of each job as
  // it is emitted (progress lines, record lines: report/printer.hpp), and of what the busy lanes
  // are doing (their jobs and phases) about ten times a second, always from the calling thread.
  runner(std::vector<evaluator*> lanes, record_writer* writer, std::map<std::string, nlohmann::json> recorded,
         printer& out, record_order order = record_order::selection)
      : m_lanes(std::move(lanes)), m_writer(writer), m_recorded(std::move(recorded)), m_out(out), m_order(order) {}
  runner(evaluator& eval, record_writer* writer, std::map<std::string, nlohmann::json> recorded, printer& out)
      : runner(std::vector<evaluator*>{&eval}, writer, std::move(recorded), out) {}

  // The host memory (bytes, 0: no limit) that the evaluations in flight may hold together by
  // their estimates (memory_budget.hpp), and the live limit beside it (job_board.hpp): a lane
  // takes a later job that fits, or waits.
  // `tracer_bytes`: what a job's tracer may hold besides (memory_limits.hpp), counted with each
  // job's estimate.
  void set_memory_budget(std::uint64_t bytes, live_memory live = {}, std::uint64_t tracer_bytes = 0) {
    m_memory_budget = bytes;
    m_live_memory = std::move(live);
    m_tracer_bytes = tracer_bytes;
  }

  // Evaluates every job at its own configuration; each record is written as soon as the order
  // allows, before it is told. Ctrl-C abandons the jobs in flight (they get no record); the lanes
  // stop taking jobs.
  run_outcome run(const std::vector<evaluation_job>& jobs);
  // Every task with the candidate `candidate` gives, at the configuration's size.
  run_outcome run(const std::vector<task_info>& tasks, const candidate_for& candidate, const run_config& config);

private:
  std::vector<evaluator*> m_lanes;
  record_writer* m_writer;
  std::map<std::string, nlohmann::json> m_recorded;
  printer& m_out;
  record_order m_order;
  std::uint64_t m_memory_budget = 0;
  live_memory m_live_memory;
  std::uint64_t m_tracer_bytes = 0;
};

}  // namespace pallasbench
