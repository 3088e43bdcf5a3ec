// What the harness knows about a task: read from the worker's "describe" answer.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pallasbench/suite/dtype.hpp"
#include "pallasbench/suite/size.hpp"
#include "pallasbench/suite/tolerance.hpp"

namespace pallasbench {

struct input_info {
  std::string name;
  std::string domain;
};

struct task_info {
  std::string name;
  int level = 0;
  std::string category;
  std::string path;    // the task file
  std::string sha256;  // of the task file
  std::vector<input_info> inputs;
  std::map<std::string, std::map<std::string, std::vector<std::int64_t>>> shapes;  // size -> input -> shape
  tolerance tol;  // at the dtype the task is evaluated at (at_dtype)
  std::map<std::string, tolerance> tolerances;  // dtype -> the task's bound at it (task/dtypes.py)
  bool uses_tf32 = false;
  bool order_dependent = false;
  bool integer_ops = false;                   // flops() counts integer operations: no float FLOP ceiling applies
  bool reference_float64 = false;             // correctness reference computed in float64
  std::map<std::string, std::string> dtypes;  // input -> numpy dtype name
  std::map<std::string, std::int64_t> flops;  // per size
  std::map<std::string, std::int64_t> bytes;  // per size, at the dtype the task is evaluated at
  // dtype -> size -> bytes, where the task's byte model takes the element size (at(dtype) picks).
  std::map<std::string, std::map<std::string, std::int64_t>> bytes_by_dtype;
  std::string output_dtype;                   // the reference's output dtype ("float32", "int32", ...)
  // The suite kernel's shipped configuration ({gpu, source, values: size -> dtype -> [{key,
  // value}]}, task/registry.py's _kernel_config); null when it ships none.
  nlohmann::json kernel_config;
  std::vector<std::string> stress_cases;      // checked after the seeds (docs/tasks.md, "Stress cases")
  std::map<std::string, std::string> stress_skipped;  // case -> why the task skips it
  // Read by the trusted reference process, never by the process that imports the kernel.
  std::string source;            // the task file
  std::string bundled_source;    // the task file followed by the shared kernel modules it imports
  std::string reference_source;  // the reference function's source

  [[nodiscard]] static task_info from_json(const nlohmann::json& j);
  // The task as evaluated at `dtype`: its tolerance there, float32 inputs at the dtype, and a
  // float32 output too when some input is float.
  [[nodiscard]] task_info at(float_dtype dtype) const;
  [[nodiscard]] std::string shape_summary(problem_size size) const;  // "x(4096,4096) y(...)"
  // The task's FLOP and byte models at `size`; none where the task declares none.
  [[nodiscard]] std::optional<double> flops_at(problem_size size) const;
  [[nodiscard]] std::optional<double> bytes_at(problem_size size) const;
};

}  // namespace pallasbench
