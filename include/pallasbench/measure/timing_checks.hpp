// Checks of timed samples that a candidate cannot answer for: every sample launched a kernel
// the module defines (CUPTI's launches against the module's Triton custom calls), and no sample
// is faster than the device allows (a roofline floor from the run's measured ceilings).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pallasbench {

// A launch geometry: grid (x, y, z) and threads per block.
struct launch_geometry {
  std::array<std::int64_t, 3> grid{};
  std::int64_t threads = 0;
  friend bool operator==(const launch_geometry&, const launch_geometry&) = default;
};

// A kernel the module defines (its Pallas custom call's kernel name, grid and warps).
struct module_kernel {
  std::string name;
  std::optional<launch_geometry> geometry;
  // From the executor's `load` reply (kernels[]: name, grid_x/y/z, num_warps; a Mosaic GPU
  // kernel's launches[]: name, grid_x/y/z, block_threads, each a kernel of its own).
  [[nodiscard]] static std::vector<module_kernel> from_load_reply(const nlohmann::json& kernels);
};

// A launch CUPTI saw in a sample.
struct kernel_launch {
  std::string name;
  launch_geometry geometry;
};

struct launch_check {
  bool applicable = false;  // false: the timer sees no launches (wall clock)
  bool passed = false;
  std::size_t samples = 0;
  std::size_t by_name = 0;      // samples holding a launch named as a module kernel
  std::size_t by_geometry = 0;  // samples matched only by grid and block (CUPTI can name a kernel stale)
  std::size_t without = 0;      // samples with no launch of a module kernel
  std::string reason;
  [[nodiscard]] nlohmann::json to_json() const;
};

// Every sample must hold at least one launch of a module kernel: by name, or (CUPTI may report
// a stale name for a function loaded where an unloaded one was) by grid and threads per block.
[[nodiscard]] launch_check check_launches(std::span<const module_kernel> kernels,
                                          std::span<const std::vector<kernel_launch>> samples);
// For a timer that sees no launches: not applicable, with the reason.
[[nodiscard]] launch_check launches_not_visible(std::string reason);

// The device's ceilings the floor divides by.
struct device_ceilings {
  double copy_gbps = 0;                  // streaming read+write bandwidth
  double peak_tflops = 0;                // the fastest measured matmul, any precision
  std::string peak_name;                 // which one ("matmul_bf16", ...)
  std::optional<std::int64_t> l2_bytes;  // writes up to this much may stay in L2 when a sample ends
  std::string source;                    // "measured this run" or the --ceilings file
  // From ceilings.measure()'s JSON (copy.gbps, matmul_*.tflops); nullopt without a bandwidth.
  [[nodiscard]] static std::optional<device_ceilings> from_json(const nlohmann::json& ceilings,
                                                                const nlohmann::json& l2_bytes, std::string source);
};

// What the task must at least move and compute at this size.
struct work_model {
  double bytes = 0;         // the task's minimum bytes moved
  double output_bytes = 0;  // of which the output (writes may end in L2, not in memory)
  double flops = 0;
  bool integer_ops = false;  // integer work: no float FLOP ceiling applies
};

// A measured time may beat a ceiling by this much before it counts as impossible: the ceilings
// are XLA's best, a kernel may do a little better.
inline constexpr double k_floor_margin = 0.10;

struct floor_check {
  bool applied = false;
  bool passed = true;
  double floor_us = 0;
  std::string bound;  // "bytes" or "flops": the larger of the two floors
  double bytes_floor_us = 0, flops_floor_us = 0;
  double fastest_us = 0;
  std::size_t below = 0;            // kernel samples under the floor
  std::size_t reference_below = 0;  // XLA samples under it (a floor XLA beats is too high)
  std::optional<device_ceilings> ceilings;
  std::string reason;
  [[nodiscard]] nlohmann::json to_json() const;
};

// floor = (1 - margin) * max(bytes beyond what L2 can absorb / copy bandwidth, flops / peak).
[[nodiscard]] floor_check check_floor(const work_model& work, const device_ceilings& ceilings,
                                      std::span<const double> kernel_us, std::span<const double> reference_us);
[[nodiscard]] floor_check floor_not_applied(std::string reason);

}  // namespace pallasbench
