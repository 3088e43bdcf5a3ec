// What the harness knows about a task: read from the worker's "describe" answer.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pallasbench/suite/backend.hpp"
#include "pallasbench/suite/dtype.hpp"
#include "pallasbench/suite/size.hpp"
#include "pallasbench/suite/tolerance.hpp"

namespace pallasbench {

struct input_info {
  std::string name;
  std::string domain;
  bool weight = false;  // a model parameter: movement of weights alone outside the kernels is packing
};

// The task as evaluated at one dtype, as the reference process's describe derives it (task/dtypes.py
// views(): the one place the dtype axis is derived).
struct dtype_view {
  tolerance tol;
  std::map<std::string, std::string> dtypes;  // input -> numpy dtype name
  std::string output_dtype;
  std::optional<std::map<std::string, std::int64_t>> bytes;  // per size; none: no byte model at this dtype
};

struct task_info {
  std::string name;
  int level = 0;
  std::string category;
  std::string path;    // the task file
  std::string sha256;  // of the task file
  std::vector<input_info> inputs;
  std::map<std::string, std::map<std::string, std::vector<std::int64_t>>> shapes;  // size -> input -> shape
  tolerance tol;  // at the dtype the task is evaluated at (at())
  bool uses_tf32 = false;
  bool order_dependent = false;
  bool integer_ops = false;                   // flops() counts integer operations: no float FLOP ceiling applies
  std::map<std::string, std::string> dtypes;  // input -> numpy dtype name
  std::map<std::string, std::int64_t> flops;  // per size
  std::map<std::string, std::int64_t> bytes;  // per size, at the dtype the task is evaluated at
  std::string output_dtype;                   // the reference's output dtype ("float32", "int32", ...)
  std::map<std::string, dtype_view> views;    // dtype name -> the task at it (at() picks)
  std::vector<kernel_backend> backends;       // its implementations, preferred first (describe's "backends")
  // Those of its implementations that run on a GPU only, never in Pallas interpret mode on the
  // CPU (describe's "gpu_only_backends": several warpgroups synchronising through barriers).
  std::vector<kernel_backend> gpu_only;
  // Each implementation's shipped configuration ({gpu, source, values: size -> dtype -> [{key,
  // value}], pinned}, task/registry.py's _kernel_configs); none, or null, when it ships none.
  std::map<kernel_backend, nlohmann::json> kernel_configs;
  std::vector<std::string> stress_cases;              // checked after the seeds (docs/tasks.md, "Stress cases")
  std::map<std::string, std::string> stress_skipped;  // case -> why the task skips it
  // Read by the trusted reference process, never by the process that imports the kernel.
  std::string source;            // the task file
  std::string bundled_source;    // the task file followed by the shared kernel modules it imports
  std::string reference_source;  // the reference function's source

  [[nodiscard]] static task_info from_json(const nlohmann::json& j);
  // The task as evaluated at `dtype`: its view there (tolerance, input and output dtypes, byte
  // model), taken whole from describe. Throws naming the task when describe gave none.
  [[nodiscard]] task_info at(float_dtype dtype) const;
  [[nodiscard]] std::string shape_summary(problem_size size) const;  // "x(4096,4096) y(...)"
  // The implementations --backend asks of this task where it runs: its preferred one, the one
  // named (none when it has none), or all of them, preferred first. Off the GPU (`on_gpu`
  // false), a GPU-only implementation is none: the preferred one is the first that runs there.
  [[nodiscard]] std::vector<kernel_backend> implementations(backend_choice choice, bool on_gpu = true) const;
  // The task's FLOP and byte models at `size`; none where the task declares none.
  [[nodiscard]] std::optional<double> flops_at(problem_size size) const;
  [[nodiscard]] std::optional<double> bytes_at(problem_size size) const;
};

}  // namespace pallasbench
