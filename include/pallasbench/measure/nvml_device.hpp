// The GPU's clocks, throttle reasons, utilisation and compute processes, from NVML.
#pragma once

#include <dlfcn.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pallasbench {

struct gpu_process {
  unsigned pid = 0;
  std::uint64_t used_bytes = 0;
};

// NVML (libnvidia-ml.so.1, installed with the driver) opened at run time, so nothing needs it to
// build or to run on a machine without a GPU. RAII: the library is shut down and closed with the
// object. Readings that NVML refuses come back empty, never as a made-up value.
class nvml_device {
public:
  // The device at NVML index `index`; nullptr with the reason in `why` when NVML or the device
  // is not there.
  [[nodiscard]] static std::unique_ptr<nvml_device> open(unsigned index, std::string& why,
                                                         const char* library = "libnvidia-ml.so.1");
  ~nvml_device();
  nvml_device(const nvml_device&) = delete;
  nvml_device& operator=(const nvml_device&) = delete;

  [[nodiscard]] std::optional<unsigned> sm_clock_mhz() const;
  [[nodiscard]] std::optional<unsigned> max_sm_clock_mhz() const;
  // NVML's clocks-event (throttle) reason bits; 0 or idle-only means not throttled.
  [[nodiscard]] std::optional<std::uint64_t> clock_event_reasons() const;
  [[nodiscard]] std::optional<unsigned> utilization_pct() const;
  [[nodiscard]] std::vector<gpu_process> compute_processes() const;
  [[nodiscard]] std::string name() const;
  // "GPU-xxxxxxxx-...", empty when NVML refuses.
  [[nodiscard]] std::string uuid() const;
  // How many devices NVML sees (all of the host's, whatever CUDA_VISIBLE_DEVICES says).
  [[nodiscard]] unsigned device_count() const;

  struct api;

private:
  nvml_device(std::unique_ptr<api> functions, void* device);
  std::unique_ptr<api> m_api;
  void* m_device = nullptr;
};

// NVML's index of the device CUDA (and JAX) calls 0: the first entry of CUDA_VISIBLE_DEVICES when
// it is a number (NVML ignores that variable), else 0.
[[nodiscard]] unsigned nvml_index_of_cuda_device0();

// Looks `name` up in a dlopen'ed library into a typed function pointer; false when it is absent.
template <class Fn>
bool resolve_symbol(void* library, const char* name, Fn& out) {
  out = reinterpret_cast<Fn>(dlsym(library, name));
  return out != nullptr;
}

// Names of the throttle reasons set in NVML's bit mask (idle excluded: an idle GPU is not slowed).
[[nodiscard]] std::vector<std::string> clock_event_names(std::uint64_t reasons);

}  // namespace pallasbench
