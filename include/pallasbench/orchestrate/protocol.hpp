// The worker protocol's commands, one struct each (docs/protocol.md; mirrored by
// python/pallasbench/worker/protocol.py). A request knows its command and its JSON; a reply is
// read from the worker's JSON, and a missing or mistyped field throws reply_error (a trusted
// worker that answers so is the harness's fault), except the tracer's: a trace reply without a
// module is the candidate's compile_error, its process being the candidate's.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pallasbench/orchestrate/run_plan.hpp"
#include "pallasbench/orchestrate/worker.hpp"

namespace pallasbench::protocol {

class reply_error : public error {
public:
  using error::error;
};

struct input_spec {
  std::vector<std::int64_t> shape;
  std::string dtype;
};

// A .npy file a worker wrote.
struct array_file {
  std::string path;
  std::vector<std::int64_t> shape;
  std::string dtype;
};

// ---- reference ------------------------------------------------------------------------------

struct describe_request {
  static constexpr const char* command = "describe";
  std::vector<std::string> candidate_files;
  std::int64_t max_source_bytes = 0;
  std::optional<std::vector<std::string>> tasks;  // the tasks to describe (none: every task)
  // A candidate file -> the tasks its records' `diff` is against (their task files).
  std::map<std::string, std::vector<std::string>> diff_against;
  [[nodiscard]] nlohmann::json to_json() const;
};

struct reference_request {
  static constexpr const char* command = "reference";
  std::string task;
  problem_size size = problem_size::small;
  std::uint64_t seed = 0;
  std::string dir;
  std::optional<std::string> stress;   // a stress case's inputs instead of the task's
  std::optional<std::size_t> perturb;  // the input perturbed within its domain
  // The inputs alone (host work); the same request without it then makes the output (device work).
  bool inputs_only = false;
  float_dtype dtype = float_dtype::float32;  // inputs and output rounded to it
  // XLA's own output at the task's precision class on the same inputs, instead of the reference.
  bool platform = false;
  [[nodiscard]] nlohmann::json to_json() const;
};

struct reference_reply {
  std::vector<array_file> inputs;  // in the task's input order
  array_file output;
  std::optional<double> large_factor;  // the large stress case's factor, as used (it may shrink at float16)
  [[nodiscard]] static reference_reply from_json(const nlohmann::json& j);
  [[nodiscard]] std::vector<std::string> input_paths() const;
  [[nodiscard]] std::vector<input_spec> input_specs() const;
};

struct device_request {
  static constexpr const char* command = "device";
  bool ceilings = false;
  [[nodiscard]] nlohmann::json to_json() const;
};

// ---- tracer ---------------------------------------------------------------------------------

struct trace_request {
  static constexpr const char* command = "trace";
  std::optional<std::string> task;        // a suite task's own kernel, or:
  std::string source;                     // a user candidate's file as the reference process read it
  std::string name;                       // its file name
  std::string encoding;                   // the codec it declares
  std::optional<kernel_backend> backend;  // a suite task's implementation (none: its `kernel`)
  std::vector<input_spec> inputs;
  device_kind platform = device_kind::cpu;
  std::optional<std::string> gpu_kind;  // the device kind the trusted processes see
  [[nodiscard]] nlohmann::json to_json() const;
};

struct trace_reply {
  std::string module;
  nlohmann::json analysis_module;  // string (CPU: the CUDA lowering) or null
  std::string jaxpr;
  nlohmann::json pallas_calls = nlohmann::json::array();
  nlohmann::json jaxpr_dag;
  std::vector<std::string> task_modules_loaded;
  [[nodiscard]] static trace_reply from_json(const nlohmann::json& j);
};

// ---- executor -------------------------------------------------------------------------------

struct load_request {
  static constexpr const char* command = "load";
  std::string module;
  nlohmann::json analysis_module;
  std::vector<input_spec> inputs;
  [[nodiscard]] nlohmann::json to_json() const;
};

struct compile_request {
  static constexpr const char* command = "compile";
  artifact_mode mode = artifact_mode::none;
  bool pass_trail = false;
  std::string dir;  // where artifact files go (not for mode none)
  [[nodiscard]] nlohmann::json to_json() const;
};

struct compile_reply {
  double lower_s = 0, compile_s = 0;
  // JAX's persistent compilation cache: {"enabled": bool, "hit": bool or null (not looked up)}.
  nlohmann::json cache = {{"enabled", false}, {"hit", nullptr}};
  nlohmann::json memory = nlohmann::json::object();
  nlohmann::json artifacts = nlohmann::json::object();
  [[nodiscard]] static compile_reply from_json(const nlohmann::json& j);
};

struct artifacts_request {
  static constexpr const char* command = "artifacts";
  [[nodiscard]] nlohmann::json to_json() const;
};

struct run_request {
  static constexpr const char* command = "run";
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;  // one call per path
  [[nodiscard]] nlohmann::json to_json() const;
};

struct run_reply {
  std::vector<array_file> outputs;
  [[nodiscard]] static run_reply from_json(const nlohmann::json& j);
};

// One batch of timing, for "time" (executor) and "time_reference" (reference): exactly `warmup`
// untimed calls, then `samples` timed ones, fewer once max_seconds have passed.
struct timing_batch {
  int warmup = 0;
  int samples = 1;
  double max_seconds = 1;
};

struct time_request {
  static constexpr const char* command = "time";
  std::vector<std::string> inputs;
  std::string output;  // where the batch's last output goes, for the harness to recheck; empty: nowhere
  timing_batch batch;
  [[nodiscard]] nlohmann::json to_json() const;
};

struct time_reference_request {
  static constexpr const char* command = "time_reference";
  std::vector<std::string> inputs;
  std::string task;
  std::string precision;  // the baseline's matmul precision: "default" | "highest"
  timing_batch batch;
  float_dtype dtype = float_dtype::float32;  // the baseline runs at the run's dtype
  [[nodiscard]] nlohmann::json to_json() const;
};

// Sends `request` and returns the reply's payload (worker::call's failures pass through).
template <class Request>
nlohmann::json call(worker& w, const Request& request, std::chrono::milliseconds timeout) {
  return w.call(request.to_json(), timeout);
}

}  // namespace pallasbench::protocol
