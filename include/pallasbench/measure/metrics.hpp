// What a timing says beyond its samples: the speedup over XLA with its interval, the SM clock
// and throttling, each kernel's share of the device time, and the achieved throughput against
// the run's measured ceilings (the roofline).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pallasbench/measure/timing.hpp"

namespace pallasbench {

// A sample whose SM clock was under this fraction of the maximum ran throttled (power, heat) or
// before the clock had risen: flagged, and counted in the record.
inline constexpr double k_throttle_fraction = 0.9;

// Reference time over kernel time, with a conservative 95% interval from the two medians'
// intervals (the ratio of their opposite ends).
struct speedup_estimate {
  double value = 0;
  double ci95_lo = 0, ci95_hi = 0;
};

// Only device time supports a claim of speed: none for the wall clock, or without a reference.
[[nodiscard]] std::optional<speedup_estimate> speedup(const timing_result& timing);

struct clock_report {
  double start_mhz = 0, end_mhz = 0, min_mhz = 0;
  std::optional<double> max_mhz;                 // the device's maximum (NVML), when known
  std::optional<std::size_t> throttled_samples;  // under k_throttle_fraction of max_mhz
  std::size_t unread_samples = 0;                // samples whose clock could not be read
};

// None when no sample's clock was read.
[[nodiscard]] std::optional<clock_report> sm_clock(const timed_side& side, std::optional<double> max_mhz);

struct kernel_share {
  std::string name;
  std::int64_t count = 0;
  double total_us = 0;
  std::optional<double> share;  // of all kernels' device time; none when that is zero
};

// `kernels`: name -> {count, total_us} as the timer replies sum them. Largest first.
[[nodiscard]] std::vector<kernel_share> kernel_shares(const nlohmann::json& kernels);

struct work_counts {
  std::optional<double> flops, bytes;  // the task's models at the run's size
  bool integer_ops = false;            // no float FLOP ceiling applies
  bool uses_tf32 = false;              // the TF32 matmul ceiling applies, not the f32 one
  std::string flops_ceiling;           // set: this ceiling applies ("matmul_bf16" at --dtype bfloat16)
};

struct roofline_estimate {
  std::optional<double> tflops, gbps;                            // achieved, from the kernel's device median
  std::optional<double> pct_peak_bandwidth, pct_peak_flops;      // of the measured ceilings
  std::optional<std::string> flops_ceiling;                      // "matmul_tf32", "matmul_f32", "matmul_bf16", ...
};

// Achieved throughput from the task's own FLOP and byte models and the kernel's device time,
// against `ceilings` (environment.gpu.ceilings: copy.gbps, matmul_*.tflops; null when not
// measured). Empty without a device-timed kernel.
[[nodiscard]] roofline_estimate roofline(const work_counts& work, const std::optional<timing_result>& timing,
                                         const nlohmann::json& ceilings);

// The median of the finite values; none when there are none.
[[nodiscard]] std::optional<double> finite_median(std::vector<double> values);

}  // namespace pallasbench
