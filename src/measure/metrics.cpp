#include "pallasbench/measure/metrics.hpp"

#include <algorithm>
#include <cmath>

#include "pallasbench/measure/statistics.hpp"

namespace pallasbench {

using nlohmann::json;

std::optional<speedup_estimate> speedup(const timing_result& timing) {
  if (timing.timer != "cupti" || !timing.reference) return std::nullopt;
  const auto& kernel = timing.kernel.series.summary;
  const auto& reference = timing.reference->series.summary;
  if (kernel.median <= 0 || kernel.median_ci95_lo <= 0) return std::nullopt;
  return speedup_estimate{reference.median / kernel.median, reference.median_ci95_lo / kernel.median_ci95_hi,
                          reference.median_ci95_hi / kernel.median_ci95_lo};
}

std::optional<clock_report> sm_clock(const timed_side& side, std::optional<double> max_mhz) {
  std::vector<double> read;
  for (const double c : side.sm_clock_mhz)
    if (std::isfinite(c)) read.push_back(c);
  if (read.empty()) return std::nullopt;
  clock_report report{read.front(), read.back(), *std::min_element(read.begin(), read.end()), max_mhz, std::nullopt,
                      side.sm_clock_mhz.size() - read.size()};
  if (max_mhz)
    report.throttled_samples = static_cast<std::size_t>(
        std::count_if(read.begin(), read.end(), [&](double c) { return c < k_throttle_fraction * *max_mhz; }));
  return report;
}

std::vector<kernel_share> kernel_shares(const json& kernels) {
  std::vector<kernel_share> shares;
  double total = 0;
  for (const auto& [name, k] : kernels.items()) {
    shares.push_back({name, k.value("count", std::int64_t{0}), k.value("total_us", 0.0), std::nullopt});
    total += shares.back().total_us;
  }
  if (total > 0)
    for (auto& s : shares) s.share = s.total_us / total;
  std::stable_sort(shares.begin(), shares.end(),
                   [](const kernel_share& a, const kernel_share& b) { return a.total_us > b.total_us; });
  return shares;
}

namespace {

// ceilings[name][field] when it is a positive number.
std::optional<double> positive_ceiling(const json& ceilings, const char* name, const char* field) {
  if (!ceilings.is_object() || !ceilings.contains(name) || !ceilings[name].is_object()) return std::nullopt;
  const double value = ceilings[name].value(field, 0.0);
  return value > 0 ? std::optional<double>(value) : std::nullopt;
}

}  // namespace

roofline_estimate roofline(const work_counts& work, const std::optional<timing_result>& timing,
                           const json& ceilings) {
  roofline_estimate r;
  if (!timing || timing->timer != "cupti" || timing->kernel.series.summary.median <= 0) return r;
  const double seconds = timing->kernel.series.summary.median * 1e-6;
  if (work.flops) r.tflops = *work.flops / seconds * 1e-12;
  if (work.bytes) r.gbps = *work.bytes / seconds * 1e-9;
  if (const auto copy = positive_ceiling(ceilings, "copy", "gbps"); copy && r.gbps)
    r.pct_peak_bandwidth = 100 * *r.gbps / *copy;
  // Integer work (compares, counts) has no measured ceiling: an f32 FMA peak would mislead.
  if (work.integer_ops) return r;
  const std::string name = !work.flops_ceiling.empty() ? work.flops_ceiling
                           : work.uses_tf32           ? "matmul_tf32"
                                                      : "matmul_f32";
  if (const auto peak = positive_ceiling(ceilings, name.c_str(), "tflops"); peak && r.tflops) {
    r.pct_peak_flops = 100 * *r.tflops / *peak;
    r.flops_ceiling = name;
  }
  return r;
}

std::optional<double> finite_median(std::vector<double> values) {
  std::erase_if(values, [](double v) { return !std::isfinite(v); });
  if (values.empty()) return std::nullopt;
  return summarize(values).median;
}

}  // namespace pallasbench
