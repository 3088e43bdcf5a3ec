// The record's verdict vocabulary: what became of an evaluation (status) and where it failed
// (phase). Defined by the record because the records file is where they are read back.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pallasbench/core/enum_names.hpp"

namespace pallasbench {

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

template <>
struct enum_names<task_status> {
  static constexpr std::string_view what = "status";
  static constexpr std::array entries{
      std::pair{task_status::ok, std::string_view("ok")},
      std::pair{task_status::incorrect, std::string_view("incorrect")},
      std::pair{task_status::compile_error, std::string_view("compile_error")},
      std::pair{task_status::runtime_error, std::string_view("runtime_error")},
      std::pair{task_status::timeout, std::string_view("timeout")},
      std::pair{task_status::crashed, std::string_view("crashed")},
      std::pair{task_status::harness_error, std::string_view("harness_error")},
      std::pair{task_status::timing_rejected, std::string_view("timing_rejected")},
  };
};

// "Passed", the one definition (what exit code 0 means, what every report, comparison, export and
// card counts): correct and robust. Written into the record's `passed` when it is made; readers
// take the field (record_passed, record.hpp), never re-derive it.
[[nodiscard]] constexpr bool passed(task_status status, std::optional<bool> robustness_passed) {
  return status == task_status::ok && robustness_passed.value_or(false);
}

// The evaluation's steps, in order, as a failure names them.
enum class failure_phase {
  reference,       // the trusted reference process made inputs and outputs
  trace,           // the sandboxed tracer imported and exported the candidate
  load,            // the executor deserialized the module (or the candidate file was refused)
  analysis,        // the harness read the module's StableHLO
  compile,         // the executor compiled it
  run,             // the executor ran it on checked inputs
  check,           // the harness compared outputs with the reference
  time,            // the executor timed the kernel (or the timing checks refused it)
  time_reference,  // the reference process timed XLA's baseline
};

template <>
struct enum_names<failure_phase> {
  static constexpr std::string_view what = "phase";
  static constexpr std::array entries{
      std::pair{failure_phase::reference, std::string_view("reference")},
      std::pair{failure_phase::trace, std::string_view("trace")},
      std::pair{failure_phase::load, std::string_view("load")},
      std::pair{failure_phase::analysis, std::string_view("analysis")},
      std::pair{failure_phase::compile, std::string_view("compile")},
      std::pair{failure_phase::run, std::string_view("run")},
      std::pair{failure_phase::check, std::string_view("check")},
      std::pair{failure_phase::time, std::string_view("time")},
      std::pair{failure_phase::time_reference, std::string_view("time_reference")},
  };
};

// A failure in these phases is the harness's own (its reference hung or died), never the
// candidate's.
[[nodiscard]] constexpr bool on_reference_side(failure_phase phase) {
  return phase == failure_phase::reference || phase == failure_phase::time_reference;
}

// What a failure to lower a Pallas kernel teaches, in the tracer's words (untrusted text, shown as
// it is): the backend JAX chose and why, the candidate's line the error points at, the usual
// fixes (python/pallasbench/worker/backends.py).
struct lowering_help {
  std::string backend;         // "triton", "mosaic_gpu", or "" when the failure is no backend's
  std::string chosen_by;       // why JAX lowers the kernel with it (compiler params, the default)
  std::string candidate_line;  // "file.py:8 in body: source line", or ""
  std::vector<std::string> fixes;
};

struct failure_info {
  failure_phase phase = failure_phase::reference;
  std::string message;
  std::string traceback;
  std::optional<lowering_help> lowering;  // a compile_error whose kernel failed to lower
};

}  // namespace pallasbench
