#include "pallasbench/record/record.hpp"

#include <cmath>

#include "pallasbench/core/utf8.hpp"

namespace pallasbench {
namespace {

using nlohmann::json;

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

json side_json(const timed_side& side) {
  json j = series_json(side.series);
  j["wall_median_us"] = optional_number(finite_median(side.wall_us));
  j["span_median_us"] = optional_number(finite_median(side.span_us));
  return j;
}

json kernels_json(const json& kernels) {
  json out = json::array();
  for (const auto& k : kernel_shares(kernels))
    out.push_back({{"name", k.name}, {"count", k.count}, {"total_us", k.total_us}, {"share", optional_number(k.share)}});
  return out;
}

json clock_json(const std::optional<clock_report>& clock) {
  if (!clock) return nullptr;
  return {{"start", clock->start_mhz},
          {"end", clock->end_mhz},
          {"min", clock->min_mhz},
          {"max_mhz", optional_number(clock->max_mhz)},
          {"throttled_samples", clock->throttled_samples ? json(*clock->throttled_samples) : json(nullptr)},
          {"unread_samples", clock->unread_samples}};
}

constexpr const char* k_cupti_method =
    "device time per call: sum of the durations of the kernels/memcpys/memsets CUPTI recorded inside the sample (the "
    "L2 flushed before each sample, outside it); kernel and XLA reference sampled in alternating batches until the "
    "noise rule or the budget stops them";
constexpr const char* k_wall_method =
    "host wall clock per call, each ended by block_until_ready; kernel and XLA reference sampled in alternating "
    "batches until the noise rule or the budget stops them";

}  // namespace

json optional_number(const std::optional<double>& value) {
  return value && std::isfinite(*value) ? json(*value) : json(nullptr);
}

json timing_json(const timing_result& t) {
  const bool cupti = t.timer == "cupti";
  json j = side_json(t.kernel);
  j["timer"] = t.timer;
  j["timer_error"] = t.timer_error ? json(*t.timer_error) : json(nullptr);
  j["method"] = cupti ? k_cupti_method : k_wall_method;
  j["reference"] = t.reference ? side_json(*t.reference) : json(nullptr);
  j["reference_median_us"] = t.reference ? json(t.reference->series.summary.median) : json(nullptr);
  j["reference_precision"] = t.reference_precision;
  // A wall-clock ratio is dispatch-dominated for small kernels and meaningless in interpret mode.
  const auto ratio = speedup(t);
  j["speedup"] = ratio ? json(ratio->value) : json(nullptr);
  j["speedup_ci95"] = ratio ? json::array({ratio->ci95_lo, ratio->ci95_hi}) : json(nullptr);
  j["l2_flush"] = t.l2_flush_bytes.has_value();
  j["l2_flush_bytes"] = t.l2_flush_bytes ? json(*t.l2_flush_bytes) : json(nullptr);
  j["kernels"] = cupti ? kernels_json(t.kernel.kernels) : json(nullptr);
  j["reference_kernels"] = cupti && t.reference ? kernels_json(t.reference->kernels) : json(nullptr);
  const auto clock = sm_clock(t.kernel, t.sm_clock_max_mhz);
  j["sm_clock_mhz"] = clock_json(clock);
  j["throttled_samples"] = clock && clock->throttled_samples ? json(*clock->throttled_samples) : json(nullptr);
  j["inputs_seed"] = t.inputs_seed;
  j["recheck"] = t.recheck;
  j["launch_check"] = t.launch_check;
  j["floor"] = t.floor;
  return j;
}

json roofline_json(const work_counts& work, const roofline_estimate& achieved) {
  return {{"flops", optional_number(work.flops)},
          {"bytes", optional_number(work.bytes)},
          {"tflops", optional_number(achieved.tflops)},
          {"gbps", optional_number(achieved.gbps)},
          {"pct_peak_bandwidth", optional_number(achieved.pct_peak_bandwidth)},
          {"pct_peak_flops", optional_number(achieved.pct_peak_flops)},
          {"flops_ceiling", achieved.flops_ceiling ? json(*achieved.flops_ceiling) : json(nullptr)}};
}

json failure_json(const failure_info& failure) {
  json j = {{"phase", to_string(failure.phase)},
            {"message", valid_utf8(failure.message)},
            {"traceback", valid_utf8(failure.traceback)}};
  if (const auto& l = failure.lowering) {
    json fixes = json::array();
    for (const auto& fix : l->fixes) fixes.push_back(valid_utf8(fix));
    j["lowering"] = {{"backend", valid_utf8(l->backend)},
                     {"chosen_by", valid_utf8(l->chosen_by)},
                     {"candidate_line", valid_utf8(l->candidate_line)},
                     {"fixes", std::move(fixes)}};
  }
  return j;
}

std::optional<lowering_help> lowering_help_from_json(const json& reply) {
  if (!reply.is_object()) return std::nullopt;
  const auto text = [&](const char* key) {
    const auto it = reply.find(key);
    if (it == reply.end() || !it->is_string()) return std::string();
    auto value = it->get<std::string>();
    if (value.size() > k_lowering_text_bytes) value.resize(k_lowering_text_bytes);
    return value;
  };
  lowering_help help{text("backend"), text("chosen_by"), text("candidate_line"), {}};
  if (const auto it = reply.find("fixes"); it != reply.end() && it->is_array()) {
    for (const auto& fix : *it) {
      if (help.fixes.size() == k_lowering_fixes) break;
      if (fix.is_string()) help.fixes.push_back(fix.get<std::string>().substr(0, k_lowering_text_bytes));
    }
  }
  if (help.backend.empty() && help.chosen_by.empty() && help.candidate_line.empty() && help.fixes.empty())
    return std::nullopt;
  return help;
}

}  // namespace pallasbench

namespace pallasbench {

bool record_passed(const nlohmann::json& record) {
  if (const auto it = record.find("passed"); it != record.end() && it->is_boolean()) return it->get<bool>();
  const auto status = record.value("status", std::string());
  std::optional<bool> robust;
  if (const auto ptr = "/result/robustness_passed"_json_pointer; record.contains(ptr) && record[ptr].is_boolean())
    robust = record[ptr].get<bool>();
  try {
    return passed(parse_enum<task_status>(status), robust);
  } catch (const std::invalid_argument&) {
    return false;
  }
}

std::optional<double> record_speedup(const nlohmann::json& record) {
  const auto ptr = "/timing/speedup"_json_pointer;
  if (!record.contains(ptr) || !record[ptr].is_number()) return std::nullopt;
  const double value = record[ptr].get<double>();
  return std::isfinite(value) && value > 0 ? std::optional<double>(value) : std::nullopt;
}

}  // namespace pallasbench
