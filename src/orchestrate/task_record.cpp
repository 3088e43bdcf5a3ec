#include "pallasbench/orchestrate/task_record.hpp"
#include "pallasbench/orchestrate/paths.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pallasbench/core/utf8.hpp"
#include "pallasbench/measure/metrics.hpp"
#include "pallasbench/record/arrow_stable.hpp"
#include "pallasbench/record/record.hpp"
#include "pallasbench/record/record_bound.hpp"

namespace pallasbench {
namespace {

using nlohmann::json;

work_counts work_of(const task_result& r) {
  // At a low-precision dtype the dtype's own measured matmul peak is the compute roof.
  std::string ceiling;
  if (r.config.dtype == float_dtype::bfloat16) ceiling = "matmul_bf16";
  if (r.config.dtype == float_dtype::float16) ceiling = "matmul_f16";
  return {r.task.flops_at(r.config.size), r.task.bytes_at(r.config.size), r.task.integer_ops, r.task.uses_tf32,
          ceiling};
}

json roofline_of(const task_result& r) {
  const json none = nullptr;
  const json& ceilings = r.environment.contains(json::json_pointer("/gpu/ceilings"))
                             ? r.environment.at(json::json_pointer("/gpu/ceilings"))
                             : none;
  return roofline_json(work_of(r), roofline(work_of(r), r.timing, ceilings));
}

// The first pallas_call's block and grid shapes (the card's single-kernel fields).
std::pair<json, json> block_and_grid(const json& calls) {
  if (!calls.is_array() || calls.empty()) return {nullptr, nullptr};
  const auto& first = calls.front();
  return {first.value("block_shapes", json(nullptr)), first.value("grid", json(nullptr))};
}

// What the compiled kernel needs at its peak: arguments + outputs + XLA temporaries (from
// memory_analysis), a per-kernel figure; null when the analysis gave none. The worker's
// peak_bytes_in_use spans the whole process (earlier tasks included) and is recorded apart,
// under memory.process_peak_bytes.
json kernel_peak_bytes(const task_result& r) {
  if (!r.memory.contains("argument")) return nullptr;
  return r.memory.value("argument", 0LL) + r.memory.value("output", 0LL) + r.memory.value("temp", 0LL);
}

json memory_json(const task_result& r) {
  json memory = r.memory;
  memory["process_peak_bytes"] = r.peak_bytes ? json(*r.peak_bytes) : json(nullptr);
  memory["peak"] = kernel_peak_bytes(r);
  return memory;
}

json artifacts_json(const task_result& r) {
  json artifacts = r.compiler.is_object() ? r.compiler : json::object();
  artifacts["jaxpr_dag"] = r.jaxpr_dag.is_null() ? json(nullptr) : r.jaxpr_dag;
  return artifacts;
}

// The card's meaning: median host wall time per call (device time lives under timing).
json wall_seconds(const task_result& r) {
  if (!r.timing) return nullptr;
  if (r.timing->timer == "wall") return r.timing->kernel.series.summary.median * 1e-6;
  const auto median = finite_median(r.timing->kernel.wall_us);
  return median ? json(*median * 1e-6) : json(nullptr);
}

json result_json(const task_result& r) {
  const auto [block, grid] = block_and_grid(r.pallas_calls);
  const bool have_correctness = r.correctness.has_value();
  std::optional<double> compile_total;
  if (r.lower_s && r.compile_s) compile_total = *r.lower_s + *r.compile_s;
  return {
      {"correctness_passed", have_correctness ? json(r.status == task_status::ok) : json(false)},
      // Only measured filters count: false when they could not run (the kernel failed first).
      {"robustness_passed", r.robustness_passed ? json(*r.robustness_passed) : json(false)},
      {"max_abs_error", have_correctness ? optional_number(r.correctness->max_abs_error()) : json(nullptr)},
      {"max_rel_error", have_correctness ? optional_number(r.correctness->max_rel_error()) : json(nullptr)},
      {"wall_time_seconds", wall_seconds(r)},
      {"jit_compile_time_seconds", optional_number(compile_total)},
      {"filters", r.filters},
      {"block_shape", block},
      {"grid_shape", grid},
      // The kernel's peak on the GPU (never the worker's process-wide peak).
      {"gpu_memory_used_bytes", r.config.device == device_kind::gpu ? kernel_peak_bytes(r) : json(nullptr)},
  };
}

json shapes_json(const task_result& r) {
  json inputs = json::array();
  const auto size_it = r.task.shapes.find(r.config.size_name());
  for (const auto& in : r.task.inputs) {
    json shape = nullptr;
    if (size_it != r.task.shapes.end()) shape = size_it->second.at(in.name);
    inputs.push_back({{"name", in.name}, {"domain", in.domain}, {"shape", shape}, {"weight", in.weight}});
  }
  return inputs;
}

json model_at(const std::map<std::string, std::int64_t>& model, const std::string& size) {
  const auto it = model.find(size);
  return it == model.end() ? json(nullptr) : json(it->second);
}

// The evaluator's phases and the wall time they partition.
json phases_json(const task_result& r) {
  json phases = r.phases.is_object() ? r.phases : json::object();
  phases["wall_s"] = optional_number(r.wall_s);
  return phases;
}

json placement_json(const task_result& r) {
  json gpu = nullptr;
  if (r.config.device == device_kind::gpu)
    gpu = {{"index", r.device_index}, {"uuid", r.device_uuid.empty() ? json(nullptr) : json(r.device_uuid)}};
  return {{"lane", r.lane}, {"lanes", r.lanes}, {"gpu", gpu}};
}

// The configuration the suite's own kernel traced with at the record's size, dtype and backend
// (from the trusted describe, never from the process that ran the kernel); none for a user's
// candidate, whose configuration the harness cannot know.
json kernel_config_json(const task_result& r, bool user) {
  if (user) return nullptr;
  const auto it = r.task.kernel_configs.find(r.config.backend.value_or(kernel_backend::triton));
  if (it == r.task.kernel_configs.end() || !it->second.is_object()) return nullptr;
  const json& shipped = it->second;
  const auto size = r.config.size_name();
  const std::string dtype(to_string(r.config.dtype));
  json values = json::array();
  if (const auto& all = shipped.value("values", json::object()); all.contains(size) && all[size].contains(dtype))
    values = all[size][dtype];
  return {{"gpu", shipped.value("gpu", "")}, {"source", shipped.value("source", "")}, {"values", values}};
}

// The implementation evaluated: a suite task's, as its configuration names it; a candidate's, what
// the analysis found in its module ("mosaic_gpu", "triton", "mosaic_gpu+triton"); none before
// the module was read.
json backend_json(const task_result& r) {
  if (r.config.backend) return std::string(to_string(*r.config.backend));
  if (r.backends_found.empty()) return nullptr;
  return fmt::format("{}", fmt::join(r.backends_found, "+"));
}

}  // namespace

json to_record(const task_result& r) {
  const bool user = r.candidate.kind == candidate_kind::user;
  const auto size = r.config.size_name();
  json record = {
      {"schema_version", k_schema_version},
      {"run_id", r.run_id},
      {"config_hash", config_hash(r.task.name, r.candidate.sha256, r.config)},
      {"status", to_string(r.status)},
      {"passed", passed(r.status, r.robustness_passed)},
      {"error", r.failure ? failure_json(*r.failure) : json(nullptr)},
      {"stderr_tail", r.stderr_tail.empty() ? json(nullptr) : json(valid_utf8(r.stderr_tail))},
      // pallasbench-robust card fields
      {"kernel_name", r.task.name},
      {"level", r.task.level},
      {"category", r.task.category},
      {"source_original", r.candidate.source},
      // No automatic portability fix is applied: what ran is what was authored.
      {"source_fixed", r.candidate.source},
      {"diff", r.candidate.diff},
      {"jaxpr", r.jaxpr},
      {"stablehlo", r.stablehlo},
      {"result", result_json(r)},
      // KernelBook columns
      {"uuid", r.uuid},
      {"entry_point", "kernel"},
      {"python_code", r.candidate.reference_source},
      {"triton_code", r.candidate.bundled_source.empty() ? r.candidate.source : r.candidate.bundled_source},
      // KernelBook's columns are always there, as strings ("" when unknown): readers of its
      // schema expect each one.
      {"repo_name", user ? "" : "pallasbench"},
      {"module_name",
       user ? portable_path(r.candidate.path) : fmt::format("tasks.level{}.{}", r.task.level, r.task.name)},
      {"synthetic", false},
      {"licenses", user ? json::array() : json::array({"Apache-2.0"})},
      {"stars", 0},
      {"sha", user ? r.candidate.sha256 : r.project_sha.value_or("")},
      {"repo_link", ""},
      // Beyond both
      {"size", size},
      {"dtype", to_string(r.config.dtype)},
      {"backend", backend_json(r)},
      {"config", r.config.to_json()},
      {"shard", r.config.shard ? r.config.shard->to_json() : json(nullptr)},  // left out unsharded
      {"candidate",
       {{"kind", to_string(r.candidate.kind)},
        {"path", portable_path(r.candidate.path)},
        {"sha256", r.candidate.sha256}}},
      {"task_sha256", r.task.sha256},
      {"inputs", shapes_json(r)},
      {"tolerance", {{"atol", r.task.tol.atol}, {"rtol", r.task.tol.rtol}, {"rel_norm", r.task.tol.rel_norm}}},
      {"uses_tf32", r.task.uses_tf32},
      {"order_dependent", r.task.order_dependent},
      {"reference_precision", "float64"},
      {"seeds", r.seeds},
      {"seed", r.seed.is_null() ? json(nullptr) : r.seed},
      {"correctness", r.correctness ? r.correctness->to_json() : json(nullptr)},
      {"environment", r.environment},
      {"pallas_calls", r.pallas_calls},
      {"precision", r.precision},
      {"trust", r.trust},
      {"artifacts", artifacts_json(r)},
      {"compile",
       {{"lower_s", optional_number(r.lower_s)},
        {"compile_s", optional_number(r.compile_s)},
        {"cache", r.compile_cache}}},
      {"memory", memory_json(r)},
      {"timing", r.timing ? timing_json(*r.timing) : json(nullptr)},
      {"roofline", roofline_of(r)},
      {"flops", model_at(r.task.flops, size)},
      {"bytes", model_at(r.task.bytes, size)},
      {"phases", phases_json(r)},
      {"placement", placement_json(r)},
      {"kernel_config", kernel_config_json(r, user)},
      {"request_id", r.request_id.empty() ? json(nullptr) : json(r.request_id)},
  };
  record = arrow_stable(std::move(record));
  (void)bound_record(record);  // what it left out, `omitted` names
  return record;
}

}  // namespace pallasbench
