// libpallasbench_timer.so: device time of each timing sample from CUPTI activity records.
//
// The worker loads it with ctypes (in the process that launches the kernels), marks each
// sample's boundaries, and collects per-sample kernel time (sum and span) as JSON. libcupti is
// opened with dlopen: the library builds without it (headers from the nvidia-cuda-cupti pip
// package) and runs against the one JAX already loaded.
#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include <cuda.h>
#include <cupti_activity.h>
#include <cupti_result.h>
#include <cupti_version.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "pallasbench/measure/kernel_records.hpp"
#include "pallasbench/measure/nvml_device.hpp"

namespace {

using pallasbench::activity_kind;
using pallasbench::activity_record;
using pallasbench::time_window;

// The CUPTI entry points used, resolved from the loaded libcupti.
struct cupti_api {
  void* handle = nullptr;
  decltype(&cuptiGetVersion) get_version = nullptr;
  decltype(&cuptiGetResultString) result_string = nullptr;
  decltype(&cuptiGetTimestamp) timestamp = nullptr;
  decltype(&cuptiActivityEnable) enable = nullptr;
  decltype(&cuptiActivityDisable) disable = nullptr;
  decltype(&cuptiActivityRegisterCallbacks) register_callbacks = nullptr;
  decltype(&cuptiActivityFlushAll) flush_all = nullptr;
  decltype(&cuptiActivityGetNextRecord) next_record = nullptr;
};

constexpr std::size_t k_buffer_bytes = 8 << 20;
constexpr std::size_t k_buffer_align = 8;

struct timer_state {
  cupti_api api;
  std::mutex mutex;  // CUPTI completes buffers on its own thread
  std::vector<activity_record> records;
  std::vector<time_window> windows;
  std::vector<nlohmann::json> window_clocks;  // SM clock (MHz) read as each sample ended
  std::unique_ptr<pallasbench::nvml_device> nvml;
  std::string nvml_error;
  std::uint64_t open_begin = 0;
  bool in_sample = false;
};

timer_state& state() {
  static timer_state s;
  return s;
}

void copy_error(const std::string& message, char* error, std::size_t error_len) {
  if (!error || error_len == 0) return;
  std::strncpy(error, message.c_str(), error_len - 1);
  error[error_len - 1] = '\0';
}

std::string describe(CUptiResult result) {
  const char* text = nullptr;
  if (state().api.result_string) state().api.result_string(result, &text);
  return text ? text : fmt::format("CUPTI error {}", static_cast<int>(result));
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(k_buffer_align, k_buffer_bytes));
  *size = *buffer ? k_buffer_bytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  auto& s = state();
  std::vector<activity_record> found;
  CUpti_Activity* record = nullptr;
  while (s.api.next_record(buffer, valid, &record) == CUPTI_SUCCESS) {
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      case CUPTI_ACTIVITY_KIND_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        found.push_back({activity_kind::kernel,
                         k->name ? k->name : "?",
                         k->start,
                         k->end,
                         {k->gridX, k->gridY, k->gridZ},
                         static_cast<std::int64_t>(k->blockX) * k->blockY * k->blockZ});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        found.push_back({activity_kind::memcpy, "memcpy", m->start, m->end});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        found.push_back({activity_kind::memset, "memset", m->start, m->end});
        break;
      }
      default:
        break;
    }
  }
  std::free(buffer);
  const std::lock_guard lock(s.mutex);
  s.records.insert(s.records.end(), found.begin(), found.end());
}

// The L2 size of CUDA device 0 from the driver API (libcuda.so.1, present wherever a GPU is).
nlohmann::json l2_bytes() {
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!cuda) return nullptr;
  decltype(&cuInit) init = nullptr;
  decltype(&cuDeviceGet) device_get = nullptr;
  decltype(&cuDeviceGetAttribute) attribute = nullptr;
  nlohmann::json bytes = nullptr;
  CUdevice device = 0;
  int value = 0;
  if (pallasbench::resolve_symbol(cuda, "cuInit", init) &&
      pallasbench::resolve_symbol(cuda, "cuDeviceGet", device_get) &&
      pallasbench::resolve_symbol(cuda, "cuDeviceGetAttribute", attribute) && init(0) == CUDA_SUCCESS &&
      device_get(&device, 0) == CUDA_SUCCESS &&
      attribute(&value, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device) == CUDA_SUCCESS)
    bytes = value;
  dlclose(cuda);
  return bytes;
}

// [name, grid x, y, z, threads per block] per kernel launch of a sample.
nlohmann::json launches_json(const pallasbench::device_sample& sample) {
  auto out = nlohmann::json::array();
  for (const auto& l : sample.launches) out.push_back({l.name, l.grid[0], l.grid[1], l.grid[2], l.threads});
  return out;
}

nlohmann::json optional_json(const auto& value) { return value ? nlohmann::json(*value) : nlohmann::json(nullptr); }

}  // namespace

extern "C" {

// Opens libcupti (`cupti_path`, or the soname when null), checks that it is the CUPTI this
// library was built for, and starts recording kernels, memcpys and memsets. 0 on success.
int pb_timer_init(const char* cupti_path, char* error, std::size_t error_len) {
  auto& api = state().api;
  const char* path = cupti_path && *cupti_path ? cupti_path : "libcupti.so.13";
  api.handle = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
  if (!api.handle) {
    copy_error(fmt::format("cannot load {}: {}", path, dlerror()), error, error_len);
    return 1;
  }
  const bool ok = pallasbench::resolve_symbol(api.handle, "cuptiGetVersion", api.get_version) &&
                  pallasbench::resolve_symbol(api.handle, "cuptiGetResultString", api.result_string) &&
                  pallasbench::resolve_symbol(api.handle, "cuptiGetTimestamp", api.timestamp) &&
                  pallasbench::resolve_symbol(api.handle, "cuptiActivityEnable", api.enable) &&
                  pallasbench::resolve_symbol(api.handle, "cuptiActivityDisable", api.disable) &&
                  pallasbench::resolve_symbol(api.handle, "cuptiActivityRegisterCallbacks", api.register_callbacks) &&
                  pallasbench::resolve_symbol(api.handle, "cuptiActivityFlushAll", api.flush_all) &&
                  pallasbench::resolve_symbol(api.handle, "cuptiActivityGetNextRecord", api.next_record);
  if (!ok) {
    copy_error(fmt::format("{} lacks a CUPTI entry point: {}", path, dlerror()), error, error_len);
    return 1;
  }
  uint32_t version = 0;
  api.get_version(&version);
  if (version != CUPTI_API_VERSION) {
    copy_error(fmt::format("{} reports CUPTI API version {}; this timer was built for version {} (CUDA 13.0)", path,
                           version, CUPTI_API_VERSION),
               error, error_len);
    return 1;
  }
  if (const auto r = api.register_callbacks(buffer_requested, buffer_completed); r != CUPTI_SUCCESS) {
    copy_error("cuptiActivityRegisterCallbacks: " + describe(r), error, error_len);
    return 1;
  }
  for (const auto kind :
       {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET})
    if (const auto r = api.enable(kind); r != CUPTI_SUCCESS) {
      copy_error(fmt::format("cuptiActivityEnable({}): {}", static_cast<int>(kind), describe(r)), error, error_len);
      return 1;
    }
  // Clocks are optional: without NVML the samples carry no clock and the record says why.
  state().nvml = pallasbench::nvml_device::open(pallasbench::nvml_index_of_cuda_device0(), state().nvml_error);
  return 0;
}

// The device as the timer sees it, as JSON in `out`: L2 bytes, SM clocks, name, throttle
// reasons now. Returns the bytes needed, like pb_timer_collect.
std::size_t pb_timer_device(char* out, std::size_t cap) {
  auto& s = state();
  nlohmann::json device = {
      {"l2_bytes", l2_bytes()},
      {"nvml_error", s.nvml_error.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.nvml_error)}};
  if (s.nvml) {
    device["name"] = s.nvml->name();
    device["sm_clock_mhz"] = optional_json(s.nvml->sm_clock_mhz());
    device["sm_clock_max_mhz"] = optional_json(s.nvml->max_sm_clock_mhz());
    const auto reasons = s.nvml->clock_event_reasons();
    device["clock_event_reasons"] =
        reasons ? nlohmann::json(pallasbench::clock_event_names(*reasons)) : nlohmann::json(nullptr);
  }
  const std::string text = device.dump();
  if (text.size() + 1 > cap) return text.size() + 1;
  std::memcpy(out, text.c_str(), text.size() + 1);
  return text.size() + 1;
}

// Sample boundaries, on CUPTI's clock. The caller synchronises the device before each mark.
int pb_timer_begin_sample() {
  auto& s = state();
  if (s.in_sample || !s.api.timestamp) return 1;
  s.api.timestamp(&s.open_begin);
  s.in_sample = true;
  return 0;
}

int pb_timer_end_sample() {
  auto& s = state();
  if (!s.in_sample) return 1;
  std::uint64_t end = 0;
  s.api.timestamp(&end);
  s.windows.push_back({s.open_begin, end});
  s.window_clocks.push_back(s.nvml ? optional_json(s.nvml->sm_clock_mhz()) : nlohmann::json(nullptr));
  s.in_sample = false;
  return 0;
}

// Flushes CUPTI, groups the records by sample and writes JSON into `out` (capacity `cap`);
// returns the bytes needed (call again with a larger buffer when it exceeds cap). Clears the
// samples and records once they fit.
std::size_t pb_timer_collect(char* out, std::size_t cap) {
  auto& s = state();
  if (s.api.flush_all) s.api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::vector<activity_record> records;
  {
    const std::lock_guard lock(s.mutex);
    records = s.records;
  }
  const auto grouped = pallasbench::group_by_sample(records, s.windows);
  nlohmann::json samples = nlohmann::json::array();
  for (std::size_t i = 0; i < grouped.samples.size(); ++i) {
    const auto& sample = grouped.samples[i];
    samples.push_back({{"sum_us", sample.sum_us},
                       {"span_us", sample.span_us},
                       {"activities", sample.activities},
                       {"kernels", sample.kernels},
                       {"kernel_us", sample.kernel_us},
                       {"launches", launches_json(sample)},
                       {"sm_clock_mhz", i < s.window_clocks.size() ? s.window_clocks[i] : nlohmann::json(nullptr)}});
  }
  const std::string text =
      nlohmann::json{{"samples", samples}, {"outside", grouped.outside}, {"straddling", grouped.straddling}}.dump();
  if (text.size() + 1 > cap) return text.size() + 1;
  std::memcpy(out, text.c_str(), text.size() + 1);
  const std::lock_guard lock(s.mutex);
  s.records.clear();
  s.windows.clear();
  s.window_clocks.clear();
  return text.size() + 1;
}

}  // extern "C"
