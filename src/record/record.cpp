#include "pallasbench/record.hpp"

#include <array>
#include <cmath>
#include <random>

#include <fmt/format.h>

namespace pallasbench {
namespace {

using nlohmann::json;

json optional_number(const std::optional<double>& value) {
  return value && std::isfinite(*value) ? json(*value) : json(nullptr);
}

json series_json(const timed_series& t) {
  const auto& s = t.summary;
  return {{"samples", s.count},       {"median_us", s.median},
          {"min_us", s.min},          {"max_us", s.max},
          {"mean_us", s.mean},        {"stdev_us", s.stdev},
          {"q1_us", s.q1},            {"q3_us", s.q3},
          {"iqr_us", s.iqr()},        {"ci95_us", {s.median_ci95_lo, s.median_ci95_hi}},
          {"noise", s.noise()},       {"converged", t.converged},
          {"stopping", t.stopping}};
}

json timing_json(const task_result& r) {
  if (!r.timing) return nullptr;
  json t = series_json(r.timing->kernel);
  t["timer"] = "wall";
  t["method"] = "median of warm calls, each ended by block_until_ready (host wall clock); kernel and XLA "
                "reference sampled in alternating batches until the noise rule or the budget stops them";
  t["reference"] = r.timing->reference ? series_json(*r.timing->reference) : json(nullptr);
  t["reference_median_us"] = r.timing->reference ? json(r.timing->reference->summary.median) : json(nullptr);
  t["reference_precision"] = r.timing->reference_precision;
  // A wall-clock ratio is dispatch-dominated for small kernels and meaningless in interpret mode:
  // the device-timed speedup comes with the CUPTI timer.
  t["speedup"] = nullptr;
  return t;
}

// The first pallas_call's block and grid shapes (the card's single-kernel fields).
std::pair<json, json> block_and_grid(const json& calls) {
  if (!calls.is_array() || calls.empty()) return {nullptr, nullptr};
  const auto& first = calls.front();
  return {first.value("block_shapes", json(nullptr)), first.value("grid", json(nullptr))};
}

// What the compiled kernel needs on the device (arguments + outputs + XLA temporaries, from
// memory_analysis): a per-kernel figure. The worker's peak_bytes_in_use spans the whole process
// (earlier tasks included) and is recorded apart, under memory.process_peak_bytes.
json gpu_memory_used(const task_result& r) {
  if (r.config.device != "gpu" || !r.memory.contains("argument")) return nullptr;
  return r.memory.value("argument", 0LL) + r.memory.value("output", 0LL) + r.memory.value("temp", 0LL);
}

json memory_json(const task_result& r) {
  json memory = r.memory;
  memory["process_peak_bytes"] = r.peak_bytes ? json(*r.peak_bytes) : json(nullptr);
  return memory;
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
      {"wall_time_seconds", r.timing ? json(r.timing->kernel.summary.median * 1e-6) : json(nullptr)},
      {"jit_compile_time_seconds", optional_number(compile_total)},
      {"filters", r.filters},
      {"block_shape", block},
      {"grid_shape", grid},
      {"gpu_memory_used_bytes", gpu_memory_used(r)},
  };
}

json shapes_json(const task_result& r) {
  json inputs = json::array();
  const auto size_it = r.task.shapes.find(r.config.size);
  for (const auto& in : r.task.inputs) {
    json shape = nullptr;
    if (size_it != r.task.shapes.end()) shape = size_it->second.at(in.name);
    inputs.push_back({{"name", in.name}, {"domain", in.domain}, {"shape", shape}});
  }
  return inputs;
}

std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t hash = 1469598103934665603ull;
  for (const unsigned char c : text) hash = (hash ^ c) * 1099511628211ull;
  return hash;
}

}  // namespace

std::string_view status_name(task_status status) {
  switch (status) {
  case task_status::ok: return "ok";
  case task_status::incorrect: return "incorrect";
  case task_status::compile_error: return "compile_error";
  case task_status::runtime_error: return "runtime_error";
  case task_status::timeout: return "timeout";
  case task_status::crashed: return "crashed";
  case task_status::harness_error: return "harness_error";
  }
  return "harness_error";
}

json run_config::to_json() const {
  return {{"size", size}, {"device", device}, {"seeds", seeds}, {"timeout_s", timeout_s}};
}

std::string config_hash(const std::string& task, const std::string& candidate_sha256, const run_config& config) {
  const json key = {{"task", task}, {"candidate_sha256", candidate_sha256}, {"config", config.to_json()},
                    {"schema_version", k_schema_version}};
  return fmt::format("{:016x}", fnv1a(key.dump()));
}

std::string make_uuid() {
  std::random_device device;
  std::array<unsigned, 16> b{};
  for (auto& byte : b) byte = device() & 0xffu;
  b[6] = (b[6] & 0x0fu) | 0x40u;  // version 4
  b[8] = (b[8] & 0x3fu) | 0x80u;  // RFC 4122 variant
  return fmt::format("{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
                     b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

json to_record(const task_result& r) {
  const bool user = r.candidate.kind == "user";
  json record = {
      {"schema_version", k_schema_version},
      {"run_id", r.run_id},
      {"config_hash", config_hash(r.task.name, r.candidate.sha256, r.config)},
      {"status", status_name(r.status)},
      {"error", r.failure ? json{{"phase", r.failure->phase}, {"message", r.failure->message},
                                 {"traceback", r.failure->traceback}}
                          : json(nullptr)},
      {"stderr_tail", r.stderr_tail.empty() ? json(nullptr) : json(r.stderr_tail)},
      // pallasbench-robust card fields
      {"kernel_name", r.task.name},
      {"level", r.task.level},
      {"category", r.task.category},
      {"source_original", r.candidate.source},
      // No automatic portability fix is applied: what ran is what was authored.
      {"source_fixed", r.candidate.source},
      {"diff", ""},
      {"jaxpr", r.jaxpr},
      {"stablehlo", r.stablehlo},
      {"result", result_json(r)},
      // KernelBook columns
      {"uuid", r.uuid},
      {"entry_point", "kernel"},
      {"python_code", r.candidate.reference_source},
      {"triton_code", r.candidate.bundled_source.empty() ? r.candidate.source : r.candidate.bundled_source},
      {"repo_name", user ? json(nullptr) : json("pallasbench")},
      {"module_name", user ? r.candidate.path : fmt::format("tasks.level{}.{}", r.task.level, r.task.name)},
      {"synthetic", false},
      {"licenses", user ? json::array() : json::array({"Apache-2.0"})},
      {"stars", 0},
      {"sha", user ? json(r.candidate.sha256) : (r.project_sha ? json(*r.project_sha) : json(nullptr))},
      {"repo_link", nullptr},
      // Beyond both
      {"size", r.config.size},
      {"config", r.config.to_json()},
      {"candidate", {{"kind", r.candidate.kind}, {"path", r.candidate.path}, {"sha256", r.candidate.sha256}}},
      {"task_sha256", r.task.sha256},
      {"inputs", shapes_json(r)},
      {"tolerance", {{"atol", r.task.tol.atol}, {"rtol", r.task.tol.rtol}, {"rel_norm", r.task.tol.rel_norm}}},
      {"uses_tf32", r.task.uses_tf32},
      {"order_dependent", r.task.order_dependent},
      {"reference_precision", r.task.reference_float64 ? "float64" : "float32 (matmul precision highest)"},
      {"seeds", r.seeds},
      {"correctness", r.correctness ? r.correctness->to_json() : json(nullptr)},
      {"environment", r.environment},
      {"pallas_calls", r.pallas_calls},
      {"artifacts", {{"jaxpr_dag", r.jaxpr_dag.is_null() ? json(nullptr) : r.jaxpr_dag}}},
      {"compile", {{"lower_s", optional_number(r.lower_s)}, {"compile_s", optional_number(r.compile_s)}}},
      {"memory", memory_json(r)},
      {"timing", timing_json(r)},
      {"flops", r.task.flops.contains(r.config.size) ? json(r.task.flops.at(r.config.size)) : json(nullptr)},
      {"bytes", r.task.bytes.contains(r.config.size) ? json(r.task.bytes.at(r.config.size)) : json(nullptr)},
  };
  return record;
}

}  // namespace pallasbench
