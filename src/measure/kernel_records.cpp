#include "pallasbench/measure/kernel_records.hpp"

#include <algorithm>
#include <limits>

namespace pallasbench {

grouping group_by_sample(std::vector<activity_record> records, const std::vector<time_window>& windows) {
  grouping out;
  out.samples.resize(windows.size());
  std::vector<std::uint64_t> first(windows.size(), std::numeric_limits<std::uint64_t>::max());
  std::vector<std::uint64_t> last(windows.size(), 0);
  std::sort(records.begin(), records.end(),
            [](const activity_record& a, const activity_record& b) { return a.start_ns < b.start_ns; });
  for (const auto& r : records) {
    // The last window that begins at or before the activity's start.
    const auto it = std::upper_bound(windows.begin(), windows.end(), r.start_ns,
                                     [](std::uint64_t t, const time_window& w) { return t < w.begin_ns; });
    if (it == windows.begin()) {
      ++out.outside;
      continue;
    }
    const auto index = static_cast<std::size_t>(std::distance(windows.begin(), it) - 1);
    const auto& window = windows[index];
    if (r.start_ns > window.end_ns) {
      ++out.outside;
      continue;
    }
    if (r.end_ns > window.end_ns) {
      ++out.straddling;
      continue;
    }
    auto& sample = out.samples[index];
    sample.sum_us += static_cast<double>(r.end_ns - r.start_ns) * 1e-3;
    ++sample.activities;
    if (r.kind == activity_kind::kernel) {
      ++sample.kernels[r.name];
      sample.kernel_us[r.name] += static_cast<double>(r.end_ns - r.start_ns) * 1e-3;
      sample.launches.push_back(r);
    }
    first[index] = std::min(first[index], r.start_ns);
    last[index] = std::max(last[index], r.end_ns);
  }
  for (std::size_t i = 0; i < windows.size(); ++i)
    if (out.samples[i].activities) out.samples[i].span_us = static_cast<double>(last[i] - first[i]) * 1e-3;
  return out;
}

}  // namespace pallasbench
