#include "pallasbench/measure/nvml_device.hpp"

#include <dlfcn.h>

#include <array>
#include <cstdlib>
#include <utility>

#include <fmt/format.h>

namespace pallasbench {
namespace {

// The few NVML entry points used, declared from NVML's stable C ABI (nvml.h ships with the CUDA
// toolkit, which the build machines lack; no pip package carries it).
using nvml_return = int;
constexpr nvml_return k_nvml_success = 0;
constexpr nvml_return k_nvml_insufficient_size = 7;
constexpr int k_nvml_clock_sm = 1;
struct nvml_utilization {
  unsigned gpu = 0, memory = 0;
};
struct nvml_process_info {  // nvmlProcessInfo_t, as taken by the _v3 process queries
  unsigned pid = 0;
  unsigned long long used_gpu_memory = 0;
  unsigned gpu_instance_id = 0, compute_instance_id = 0;
};
using nvml_handle = void*;

}  // namespace

struct nvml_device::api {
  void* library = nullptr;
  nvml_return (*init)() = nullptr;
  nvml_return (*shutdown)() = nullptr;
  nvml_return (*handle_by_index)(unsigned, nvml_handle*) = nullptr;
  nvml_return (*clock_info)(nvml_handle, int, unsigned*) = nullptr;
  nvml_return (*max_clock_info)(nvml_handle, int, unsigned*) = nullptr;
  nvml_return (*clock_reasons)(nvml_handle, unsigned long long*) = nullptr;
  nvml_return (*utilization)(nvml_handle, nvml_utilization*) = nullptr;
  nvml_return (*processes)(nvml_handle, unsigned*, nvml_process_info*) = nullptr;
  nvml_return (*name)(nvml_handle, char*, unsigned) = nullptr;
  nvml_return (*uuid)(nvml_handle, char*, unsigned) = nullptr;
  nvml_return (*count)(unsigned*) = nullptr;
  bool initialised = false;
  ~api() {
    if (initialised && shutdown) shutdown();
    if (library) dlclose(library);
  }
};

std::unique_ptr<nvml_device> nvml_device::open(unsigned index, std::string& why, const char* library) {
  auto a = std::make_unique<api>();
  a->library = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!a->library) {
    why = fmt::format("cannot load {}: {}", library, dlerror());
    return nullptr;
  }
  const bool ok = resolve_symbol(a->library, "nvmlInit_v2", a->init) &&
                  resolve_symbol(a->library, "nvmlShutdown", a->shutdown) &&
                  resolve_symbol(a->library, "nvmlDeviceGetHandleByIndex_v2", a->handle_by_index) &&
                  resolve_symbol(a->library, "nvmlDeviceGetClockInfo", a->clock_info) &&
                  resolve_symbol(a->library, "nvmlDeviceGetMaxClockInfo", a->max_clock_info) &&
                  resolve_symbol(a->library, "nvmlDeviceGetCurrentClocksEventReasons", a->clock_reasons) &&
                  resolve_symbol(a->library, "nvmlDeviceGetUtilizationRates", a->utilization) &&
                  resolve_symbol(a->library, "nvmlDeviceGetComputeRunningProcesses_v3", a->processes) &&
                  resolve_symbol(a->library, "nvmlDeviceGetName", a->name) &&
                  resolve_symbol(a->library, "nvmlDeviceGetUUID", a->uuid) &&
                  resolve_symbol(a->library, "nvmlDeviceGetCount_v2", a->count);
  if (!ok) {
    why = fmt::format("{} lacks an NVML entry point: {}", library, dlerror());
    return nullptr;
  }
  if (const auto r = a->init(); r != k_nvml_success) {
    why = fmt::format("nvmlInit_v2 failed (NVML error {})", r);
    return nullptr;
  }
  a->initialised = true;
  nvml_handle device = nullptr;
  if (const auto r = a->handle_by_index(index, &device); r != k_nvml_success) {
    why = fmt::format("no NVML device {} (NVML error {})", index, r);
    return nullptr;
  }
  return std::unique_ptr<nvml_device>(new nvml_device(std::move(a), device));
}

nvml_device::nvml_device(std::unique_ptr<api> functions, void* device)
    : m_api(std::move(functions)), m_device(device) {}

nvml_device::~nvml_device() = default;

std::optional<unsigned> nvml_device::sm_clock_mhz() const {
  unsigned mhz = 0;
  if (m_api->clock_info(m_device, k_nvml_clock_sm, &mhz) != k_nvml_success) return std::nullopt;
  return mhz;
}

std::optional<unsigned> nvml_device::max_sm_clock_mhz() const {
  unsigned mhz = 0;
  if (m_api->max_clock_info(m_device, k_nvml_clock_sm, &mhz) != k_nvml_success) return std::nullopt;
  return mhz;
}

std::optional<std::uint64_t> nvml_device::clock_event_reasons() const {
  unsigned long long reasons = 0;
  if (m_api->clock_reasons(m_device, &reasons) != k_nvml_success) return std::nullopt;
  return reasons;
}

std::optional<unsigned> nvml_device::utilization_pct() const {
  nvml_utilization u;
  if (m_api->utilization(m_device, &u) != k_nvml_success) return std::nullopt;
  return u.gpu;
}

std::vector<gpu_process> nvml_device::compute_processes() const {
  std::vector<nvml_process_info> infos(64);
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto count = static_cast<unsigned>(infos.size());
    const auto r = m_api->processes(m_device, &count, infos.data());
    if (r == k_nvml_insufficient_size) {
      infos.resize(count + 16);
      continue;
    }
    if (r != k_nvml_success) return {};
    std::vector<gpu_process> found;
    for (unsigned i = 0; i < count; ++i) found.push_back({infos[i].pid, infos[i].used_gpu_memory});
    return found;
  }
  return {};
}

std::string nvml_device::name() const {
  std::array<char, 96> text{};
  if (m_api->name(m_device, text.data(), static_cast<unsigned>(text.size())) != k_nvml_success) return {};
  return text.data();
}

std::string nvml_device::uuid() const {
  std::array<char, 96> text{};
  if (m_api->uuid(m_device, text.data(), static_cast<unsigned>(text.size())) != k_nvml_success) return {};
  return text.data();
}

unsigned nvml_device::device_count() const {
  unsigned count = 0;
  return m_api->count(&count) == k_nvml_success ? count : 0;
}

unsigned nvml_index_of_cuda_device0() {
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (!visible || !*visible) return 0;
  char* end = nullptr;
  const unsigned long index = std::strtoul(visible, &end, 10);
  return end != visible && (*end == '\0' || *end == ',') ? static_cast<unsigned>(index) : 0;
}

std::vector<std::string> clock_event_names(std::uint64_t reasons) {
  // NVML's nvmlClocksEventReason* bits (0x1, idle, left out).
  static constexpr std::array<std::pair<std::uint64_t, const char*>, 8> k_names{{
      {0x2, "applications_clocks_setting"},
      {0x4, "sw_power_cap"},
      {0x8, "hw_slowdown"},
      {0x10, "sync_boost"},
      {0x20, "sw_thermal_slowdown"},
      {0x40, "hw_thermal_slowdown"},
      {0x80, "hw_power_brake_slowdown"},
      {0x100, "display_clock_setting"},
  }};
  std::vector<std::string> names;
  for (const auto& [bit, name] : k_names)
    if (reasons & bit) names.emplace_back(name);
  return names;
}

}  // namespace pallasbench
