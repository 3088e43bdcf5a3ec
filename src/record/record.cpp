#include "pallasbench/record/record.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <random>

#include <fmt/format.h>

#include "pallasbench/record/arrow_stable.hpp"
#include "pallasbench/record/record_bound.hpp"
#include "pallasbench/core/utf8.hpp"

namespace pallasbench {
namespace {

using nlohmann::json;

json optional_number(const std::optional<double>& value) {
  return value && std::isfinite(*value) ? json(*value) : json(nullptr);
}

json series_json(const timed_series& t) {
  const auto& s = t.summary;
  return {{"samples", s.count},    {"median_us", s.median},
          {"min_us", s.min},       {"max_us", s.max},
          {"mean_us", s.mean},     {"stdev_us", s.stdev},
          {"q1_us", s.q1},         {"q3_us", s.q3},
          {"iqr_us", s.iqr()},     {"ci95_us", {s.median_ci95_lo, s.median_ci95_hi}},
          {"noise", s.noise()},    {"converged", t.converged},
          {"stopping", t.stopping}};
}

// A sample whose SM clock was under this fraction of the maximum ran throttled (power, heat) or
// before the clock had risen: flagged, and counted in the record.
constexpr double k_throttle_fraction = 0.9;

json median_or_null(std::vector<double> values) {
  std::erase_if(values, [](double v) { return !std::isfinite(v); });
  if (values.empty()) return nullptr;
  return summarize(values).median;
}

json side_json(const timed_side& side) {
  json j = series_json(side.series);
  j["wall_median_us"] = median_or_null(side.wall_us);
  j["span_median_us"] = median_or_null(side.span_us);
  return j;
}

// Kernels by share of the samples' device time, largest first.
json kernels_json(const json& kernels) {
  double total = 0;
  for (const auto& [name, k] : kernels.items()) total += k.value("total_us", 0.0);
  json out = json::array();
  for (const auto& [name, k] : kernels.items())
    out.push_back({{"name", name},
                   {"count", k.value("count", 0)},
                   {"total_us", k.value("total_us", 0.0)},
                   {"share", total > 0 ? json(k.value("total_us", 0.0) / total) : json(nullptr)}});
  std::sort(out.begin(), out.end(),
            [](const json& a, const json& b) { return a.value("total_us", 0.0) > b.value("total_us", 0.0); });
  return out;
}

json clock_json(const timed_side& side, const std::optional<double>& max_mhz) {
  std::vector<double> read;
  for (const double c : side.sm_clock_mhz)
    if (std::isfinite(c)) read.push_back(c);
  if (read.empty()) return nullptr;
  std::size_t throttled = 0;
  if (max_mhz)
    for (const double c : read) throttled += c < k_throttle_fraction * *max_mhz;
  return {{"start", read.front()},
          {"end", read.back()},
          {"min", *std::min_element(read.begin(), read.end())},
          {"max_mhz", max_mhz ? json(*max_mhz) : json(nullptr)},
          {"throttled_samples", max_mhz ? json(throttled) : json(nullptr)},
          {"unread_samples", side.sm_clock_mhz.size() - read.size()}};
}

// Reference time over kernel time, with a conservative 95% interval from the two medians'
// intervals (the ratio of their opposite ends). Only device time supports a claim of speed.
std::pair<json, json> speedup_json(const timing_result& t) {
  if (t.timer != "cupti" || !t.reference) return {nullptr, nullptr};
  const auto& k = t.kernel.series.summary;
  const auto& ref = t.reference->series.summary;
  if (k.median <= 0 || k.median_ci95_lo <= 0) return {nullptr, nullptr};
  return {ref.median / k.median,
          json::array({ref.median_ci95_lo / k.median_ci95_hi, ref.median_ci95_hi / k.median_ci95_lo})};
}

json timing_json(const task_result& r) {
  if (!r.timing) return nullptr;
  const auto& t = *r.timing;
  json j = side_json(t.kernel);
  j["timer"] = t.timer;
  j["timer_error"] = t.timer_error ? json(*t.timer_error) : json(nullptr);
  j["method"] = t.timer == "cupti"
                    ? "device time per call: sum of the durations of the kernels/memcpys/memsets CUPTI recorded "
                      "inside the sample (the L2 flushed before each sample, outside it); kernel and XLA reference "
                      "sampled in alternating batches until the noise rule or the budget stops them"
                    : "host wall clock per call, each ended by block_until_ready; kernel and XLA reference sampled in "
                      "alternating batches until the noise rule or the budget stops them";
  j["reference"] = t.reference ? side_json(*t.reference) : json(nullptr);
  j["reference_median_us"] = t.reference ? json(t.reference->series.summary.median) : json(nullptr);
  j["reference_precision"] = t.reference_precision;
  // A wall-clock ratio is dispatch-dominated for small kernels and meaningless in interpret mode.
  const auto [speedup, speedup_ci95] = speedup_json(t);
  j["speedup"] = speedup;
  j["speedup_ci95"] = speedup_ci95;
  j["l2_flush"] = t.l2_flush_bytes.has_value();
  j["l2_flush_bytes"] = t.l2_flush_bytes ? json(*t.l2_flush_bytes) : json(nullptr);
  j["kernels"] = t.timer == "cupti" ? kernels_json(t.kernel.kernels) : json(nullptr);
  j["reference_kernels"] = t.timer == "cupti" && t.reference ? kernels_json(t.reference->kernels) : json(nullptr);
  j["sm_clock_mhz"] = clock_json(t.kernel, t.sm_clock_max_mhz);
  j["throttled_samples"] = j["sm_clock_mhz"].is_object() ? j["sm_clock_mhz"]["throttled_samples"] : json(nullptr);
  j["inputs_seed"] = t.inputs_seed;
  j["recheck"] = t.recheck;
  j["launch_check"] = t.launch_check;
  j["floor"] = t.floor;
  return j;
}

const json* ceiling(const json& environment, const char* name) {
  const auto pointer = json::json_pointer("/gpu/ceilings") / name;
  return environment.contains(pointer) ? &environment.at(pointer) : nullptr;
}

// Achieved throughput from the task's own FLOP and byte models and the kernel's device time,
// against the ceilings this run measured on the device (environment.gpu.ceilings).
json roofline_json(const task_result& r) {
  const auto flops =
      r.task.flops.contains(r.config.size) ? std::optional<double>(r.task.flops.at(r.config.size)) : std::nullopt;
  const auto bytes =
      r.task.bytes.contains(r.config.size) ? std::optional<double>(r.task.bytes.at(r.config.size)) : std::nullopt;
  json j = {{"flops", flops ? json(*flops) : json(nullptr)},
            {"bytes", bytes ? json(*bytes) : json(nullptr)},
            {"tflops", nullptr},
            {"gbps", nullptr},
            {"pct_peak_bandwidth", nullptr},
            {"pct_peak_flops", nullptr},
            {"flops_ceiling", nullptr}};
  if (!r.timing || r.timing->timer != "cupti" || r.timing->kernel.series.summary.median <= 0) return j;
  const double seconds = r.timing->kernel.series.summary.median * 1e-6;
  if (flops) j["tflops"] = *flops / seconds * 1e-12;
  if (bytes) j["gbps"] = *bytes / seconds * 1e-9;
  if (const auto* copy = ceiling(r.environment, "copy"); copy && bytes && copy->value("gbps", 0.0) > 0)
    j["pct_peak_bandwidth"] = 100 * j["gbps"].get<double>() / copy->value("gbps", 0.0);
  // Integer work (compares, counts) has no measured ceiling: an f32 FMA peak would mislead.
  if (r.task.integer_ops) return j;
  const char* flops_ceiling = r.task.uses_tf32 ? "matmul_tf32" : "matmul_f32";
  if (const auto* peak = ceiling(r.environment, flops_ceiling); peak && flops && peak->value("tflops", 0.0) > 0) {
    j["pct_peak_flops"] = 100 * j["tflops"].get<double>() / peak->value("tflops", 0.0);
    j["flops_ceiling"] = flops_ceiling;
  }
  return j;
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

// The card's field: the kernel's peak on the GPU (never the worker's process-wide peak).
json gpu_memory_used(const task_result& r) { return r.config.device == "gpu" ? kernel_peak_bytes(r) : json(nullptr); }

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
  const json median = median_or_null(r.timing->kernel.wall_us);
  return median.is_null() ? median : json(median.get<double>() * 1e-6);
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
    case task_status::ok:
      return "ok";
    case task_status::incorrect:
      return "incorrect";
    case task_status::compile_error:
      return "compile_error";
    case task_status::runtime_error:
      return "runtime_error";
    case task_status::timeout:
      return "timeout";
    case task_status::crashed:
      return "crashed";
    case task_status::harness_error:
      return "harness_error";
    case task_status::timing_rejected:
      return "timing_rejected";
  }
  return "harness_error";
}

json run_config::to_json() const {
  return {{"size", size}, {"device", device}, {"seeds", seeds}, {"timeout_s", timeout_s}};
}

std::string config_hash(const std::string& task, const std::string& candidate_sha256, const run_config& config) {
  const json key = {{"task", task},
                    {"candidate_sha256", candidate_sha256},
                    {"config", config.to_json()},
                    {"schema_version", k_schema_version}};
  return fmt::format("{:016x}", fnv1a(key.dump()));
}

std::string make_uuid() {
  std::random_device device;
  std::array<unsigned, 16> b{};
  for (auto& byte : b) byte = device() & 0xffu;
  b[6] = (b[6] & 0x0fu) | 0x40u;  // version 4
  b[8] = (b[8] & 0x3fu) | 0x80u;  // RFC 4122 variant
  return fmt::format(
      "{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}", b[0],
      b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

json to_record(const task_result& r) {
  const bool user = r.candidate.kind == "user";
  json record = {
      {"schema_version", k_schema_version},
      {"run_id", r.run_id},
      {"config_hash", config_hash(r.task.name, r.candidate.sha256, r.config)},
      {"status", status_name(r.status)},
      {"error", r.failure ? json{{"phase", r.failure->phase},
                                 {"message", valid_utf8(r.failure->message)},
                                 {"traceback", valid_utf8(r.failure->traceback)}}
                          : json(nullptr)},
      {"stderr_tail", r.stderr_tail.empty() ? json(nullptr) : json(valid_utf8(r.stderr_tail))},
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
      // KernelBook's columns are always there, as strings ("" when unknown): readers of its
      // schema expect each one.
      {"repo_name", user ? "" : "pallasbench"},
      {"module_name", user ? r.candidate.path : fmt::format("tasks.level{}.{}", r.task.level, r.task.name)},
      {"synthetic", false},
      {"licenses", user ? json::array() : json::array({"Apache-2.0"})},
      {"stars", 0},
      {"sha", user ? r.candidate.sha256 : r.project_sha.value_or("")},
      {"repo_link", ""},
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
      {"seed", r.seed.is_null() ? json(nullptr) : r.seed},
      {"correctness", r.correctness ? r.correctness->to_json() : json(nullptr)},
      {"environment", r.environment},
      {"pallas_calls", r.pallas_calls},
      {"precision", r.precision},
      {"trust", r.trust},
      {"artifacts", artifacts_json(r)},
      {"compile", {{"lower_s", optional_number(r.lower_s)}, {"compile_s", optional_number(r.compile_s)}}},
      {"memory", memory_json(r)},
      {"timing", timing_json(r)},
      {"roofline", roofline_json(r)},
      {"flops", r.task.flops.contains(r.config.size) ? json(r.task.flops.at(r.config.size)) : json(nullptr)},
      {"bytes", r.task.bytes.contains(r.config.size) ? json(r.task.bytes.at(r.config.size)) : json(nullptr)},
  };
  record = arrow_stable(std::move(record));
  (void)bound_record(record);  // what it left out, `omitted` names
  return record;
}

}  // namespace pallasbench
