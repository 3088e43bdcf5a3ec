#include "detail/devices.hpp"

#include <cstdlib>
#include <set>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "pallasbench/cli/commands.hpp"
#include "pallasbench/measure/nvml_device.hpp"

namespace pallasbench::detail {
namespace {

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');) parts.push_back(part);
  return parts;
}

bool is_index(const std::string& text) {
  return !text.empty() && text.size() < 6 && text.find_first_not_of("0123456789") == std::string::npos;
}

// NVML's view of the host: how many GPUs, and a device's UUID (empty when NVML is absent).
struct host_gpus {
  std::unique_ptr<nvml_device> first;  // keeps NVML open
  unsigned count = 0;
  host_gpus() {
    std::string why;
    first = nvml_device::open(0, why);
    if (first) count = first->device_count();
  }
  [[nodiscard]] std::string uuid(const std::string& entry) const {
    if (entry.rfind("GPU-", 0) == 0) return entry;
    if (!first || !is_index(entry)) return {};
    std::string why;
    const auto device = nvml_device::open(static_cast<unsigned>(std::stoul(entry)), why);
    return device ? device->uuid() : std::string{};
  }
};

}  // namespace

std::deque<device_slot> cpu_device() {
  std::deque<device_slot> devices;
  devices.emplace_back();
  return devices;
}

std::deque<device_slot> resolve_gpus(const std::string& spec) {
  const host_gpus host;
  // What this process may use, in CUDA's numbering: CUDA_VISIBLE_DEVICES's entries, or every GPU.
  std::vector<std::string> usable;
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (visible) {
    usable = split(visible);
  } else {
    for (unsigned i = 0; i < host.count; ++i) usable.push_back(std::to_string(i));
  }
  std::vector<std::size_t> chosen;
  if (spec == "all") {
    for (std::size_t i = 0; i < usable.size(); ++i) chosen.push_back(i);
    if (chosen.empty()) return cpu_device();  // nothing known of the GPUs: JAX picks as it would
  } else {
    std::set<std::size_t> seen;
    for (const auto& part : split(spec)) {
      if (!is_index(part)) throw usage_error(fmt::format("--gpus {}: 'all' or GPU indices such as 0,1", spec));
      const auto index = std::stoul(part);
      if (!seen.insert(index).second) throw usage_error(fmt::format("--gpus {}: GPU {} is named twice", spec, index));
      if (index >= usable.size())
        throw usage_error(fmt::format("--gpus {}: there is no GPU {} here ({} visible{})", spec, index, usable.size(),
                                      visible ? fmt::format(", CUDA_VISIBLE_DEVICES={}", visible) : ""));
      chosen.push_back(index);
    }
  }
  std::deque<device_slot> devices;
  for (const auto index : chosen) {
    auto& d = devices.emplace_back();
    d.index = static_cast<int>(index);
    d.visible = usable[index];
    d.uuid = host.uuid(usable[index]);
  }
  return devices;
}

}  // namespace pallasbench::detail
