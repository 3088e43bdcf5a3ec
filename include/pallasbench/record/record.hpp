// One evaluation's outcome and its dataset record (shared/DESIGN.md's schema).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pallasbench/check/correctness.hpp"
#include "pallasbench/measure/timing.hpp"
#include "pallasbench/suite/task_info.hpp"

namespace pallasbench {

// 2: Arrow-stable (no nulls, keyed maps as entry lists, artifacts always objects; see
// docs/record_schema.md).
inline constexpr int k_schema_version = 2;

// timing_rejected: correct, but its timing cannot stand (a sample launched none of its kernels,
// or beat the hardware's floor).
enum class task_status {
  ok,
  incorrect,
  compile_error,
  runtime_error,
  timeout,
  crashed,
  harness_error,
  timing_rejected
};

[[nodiscard]] std::string_view status_name(task_status status);

struct failure_info {
  std::string phase;  // "reference", "load", "run", "time", "startup"
  std::string message;
  std::string traceback;
};

struct candidate_info {
  std::string kind;  // "suite" (the task's own kernel) or "user" (eval --candidate)
  std::string path;
  std::string sha256;          // of the candidate source
  std::string source;          // as authored
  std::string bundled_source;  // the source followed by the shared kernel modules it uses
  std::string reference_source;
};

// Everything the key of a record depends on: a rerun with the same configuration is a duplicate.
struct run_config {
  std::string size = "small";
  std::string device = "cpu";  // resolved: "cpu" or "gpu"
  int seeds = 3;
  double timeout_s = 300;
  // --seed S: every evaluation's seed; none: each draws its own from OS entropy. Not part of
  // the resume key (to_json): a resumed run keeps records whatever seeds they drew.
  std::optional<std::uint64_t> seed;
  [[nodiscard]] nlohmann::json to_json() const;
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
  nlohmann::json trust = nlohmann::json::object();        // tracer sandbox, what was analysed, analysis
  nlohmann::json compiler = nlohmann::json::object();     // Triton IR, PTX, SASS, summary (record.artifacts)
  std::vector<std::string> task_modules_loaded;           // task files the tracer saw a user candidate import
  nlohmann::json filters = nlohmann::json::object();      // robustness filters by name
  std::optional<bool> robustness_passed;
  std::optional<double> lower_s, compile_s;
  nlohmann::json memory = nlohmann::json::object();
  std::optional<std::int64_t> peak_bytes;
  std::optional<correctness_report> correctness;
  std::optional<timing_result> timing;
  nlohmann::json environment = nlohmann::json::object();
  std::optional<std::string> project_sha;
};

// The resume key: task, size, candidate hash and configuration (FNV-1a 64 of their canonical JSON).
[[nodiscard]] std::string config_hash(const std::string& task, const std::string& candidate_sha256,
                                      const run_config& config);

[[nodiscard]] nlohmann::json to_record(const task_result& result);

// A random RFC 4122 version-4 UUID.
[[nodiscard]] std::string make_uuid();

}  // namespace pallasbench
