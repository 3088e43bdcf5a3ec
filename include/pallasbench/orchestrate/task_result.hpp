// One evaluation's outcome, as the evaluator fills it in; orchestrate/task_record.hpp turns it
// into the dataset record (docs/architecture.md, "The record").
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pallasbench/check/correctness.hpp"
#include "pallasbench/measure/timing.hpp"
#include "pallasbench/orchestrate/run_plan.hpp"
#include "pallasbench/record/verdict.hpp"
#include "pallasbench/suite/task_info.hpp"

namespace pallasbench {

enum class candidate_kind { suite, user };  // the task's own kernel, or a file given to eval

template <>
struct enum_names<candidate_kind> {
  static constexpr std::string_view what = "candidate kind";
  static constexpr std::array entries{
      std::pair{candidate_kind::suite, std::string_view("suite")},
      std::pair{candidate_kind::user, std::string_view("user")},
  };
};

struct candidate_info {
  candidate_kind kind = candidate_kind::suite;
  std::string path;
  std::string sha256;          // of the candidate source, as the reference process read it
  std::string source;          // as authored
  std::string bundled_source;  // the source followed by the shared kernel modules it uses
  std::string reference_source;
  std::string diff;  // from the task's file to a user's candidate (the record's `diff`)
};

struct task_result {
  std::string run_id;
  std::string uuid;
  task_info task;
  run_config config;
  candidate_info candidate;
  std::vector<std::uint64_t> seeds;
  nlohmann::json seed;  // the evaluation's seed and where it came from (seed_plan::to_json)
  task_status status = task_status::harness_error;
  std::optional<failure_info> failure;
  std::string stderr_tail;
  std::string jaxpr;                                      // the tracer's jaxpr (untrusted: for reading)
  std::string stablehlo;                                  // of the module the executor deserialized and compiled
  nlohmann::json pallas_calls = nlohmann::json::array();  // the tracer's view of grids and blocks
  nlohmann::json jaxpr_dag;                               // nodes and edges, for the record
  nlohmann::json precision;                               // the kernels' precisions (module analysis)
  std::set<std::string> backends_found;                   // the kernels' Pallas backends (module analysis)
  nlohmann::json trust = nlohmann::json::object();        // tracer sandbox, what was analysed, analysis
  nlohmann::json compiler = nlohmann::json::object();     // Triton IR, PTX, SASS, summary (record.artifacts)
  std::vector<std::string> task_modules_loaded;           // task files the tracer saw a user candidate import
  nlohmann::json filters = nlohmann::json::object();      // robustness filters by name
  std::optional<bool> robustness_passed;
  std::optional<double> lower_s, compile_s;
  nlohmann::json compile_cache;  // compile_reply::cache; null until compiled
  nlohmann::json memory = nlohmann::json::object();
  std::optional<std::int64_t> peak_bytes;
  std::optional<correctness_report> correctness;
  std::optional<timing_result> timing;
  nlohmann::json environment = nlohmann::json::object();
  std::optional<std::string> project_sha;
  // Where the time went (phase_clock.hpp: reference_s .. wait_s) and the evaluation's wall time
  // as the runner measured it around the evaluator.
  nlohmann::json phases = nlohmann::json::object();
  std::optional<double> wall_s;
  // Where it ran: the lane (of how many) and its device, as --gpus named it (GPU runs only).
  std::size_t lane = 0, lanes = 1;
  int device_index = 0;
  std::string device_uuid;
  std::string request_id;  // eval --batch: the request's id
};

}  // namespace pallasbench
