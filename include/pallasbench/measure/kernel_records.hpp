// Device activity records (CUPTI) grouped into timing samples.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace pallasbench {

enum class activity_kind { kernel, memset, memcpy };

// One device activity, timestamps in ns on the CUPTI clock.
struct activity_record {
  activity_kind kind = activity_kind::kernel;
  std::string name;
  std::uint64_t start_ns = 0, end_ns = 0;
  std::array<std::int64_t, 3> grid{};  // kernels: the launch's grid
  std::int64_t threads = 0;            // kernels: threads per block
};

// A host-side window on the same clock: a sample's boundaries (the worker marks them around a
// call that ends with block_until_ready, so everything the call launched lies inside).
struct time_window {
  std::uint64_t begin_ns = 0, end_ns = 0;
};

struct device_sample {
  double sum_us = 0;   // sum of the activities' durations
  double span_us = 0;  // first start to last end
  std::size_t activities = 0;
  std::map<std::string, int> kernels;       // name -> launches in this sample
  std::map<std::string, double> kernel_us;  // name -> summed duration in this sample
  std::vector<activity_record> launches;    // the kernels, in start order (the launch check)
};

struct grouping {
  std::vector<device_sample> samples;  // one per window, in order
  std::size_t outside = 0;             // activities in no window (e.g. the L2 flush between samples)
  std::size_t straddling = 0;          // activities crossing a window's edge (a marking error)
};

// Assigns every activity to the sample window that contains it entirely.
[[nodiscard]] grouping group_by_sample(std::vector<activity_record> records, const std::vector<time_window>& windows);

}  // namespace pallasbench
