// Sharing one device between lanes: GPU work of several lanes may overlap, a timed series may
// overlap nothing (docs/architecture.md, "Lanes": a timed series has the device to itself).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>

#include "pallasbench/orchestrate/phase_clock.hpp"

namespace pallasbench {

// A per-device token with two kinds of lease: shared (running a kernel for a check, making a
// reference output, compiling), held by any number of lanes at once, and exclusive (a timed
// series), held by one lane while no shared lease is out. Hand-written, not std::shared_mutex:
// the standard leaves fairness open and glibc's rwlock prefers readers, so with many lanes
// checking a timing lane could wait for ever. Here a waiting exclusive lease stops new shared
// ones, and exclusive leases are granted in arrival order.
class device_token {
public:
  class lease {
  public:
    lease(lease&& other) noexcept : m_token(other.m_token), m_exclusive(other.m_exclusive) { other.m_token = nullptr; }
    lease(const lease&) = delete;
    lease& operator=(const lease&) = delete;
    lease& operator=(lease&&) = delete;
    ~lease();

  private:
    friend class device_token;
    lease(device_token* token, bool exclusive) : m_token(token), m_exclusive(exclusive) {}
    device_token* m_token;
    bool m_exclusive;
  };

  // Blocks until granted; the time waited counts as work_phase::wait on `clock` when given.
  [[nodiscard]] lease shared(phase_clock* clock = nullptr);
  [[nodiscard]] lease exclusive(phase_clock* clock = nullptr);

  // For tests and diagnostics: leases out now.
  [[nodiscard]] std::size_t shared_holders() const;
  [[nodiscard]] bool exclusive_held() const;

private:
  void release(bool exclusive);

  mutable std::mutex m_mutex;
  std::condition_variable m_changed;
  std::size_t m_shared = 0;
  bool m_exclusive = false;
  std::size_t m_next_ticket = 0;  // exclusive leases are served in ticket order
  std::size_t m_serving = 0;
};

// The device lanes run on: its index as --gpus named it, what CUDA_VISIBLE_DEVICES its workers
// get, its UUID (NVML's, when known), and its token.
struct device_slot {
  int index = 0;
  std::string visible;  // the CUDA_VISIBLE_DEVICES entry; empty: leave the variable as it is
  std::string uuid;     // empty when unknown (the CPU, no NVML)
  device_token token;
};

}  // namespace pallasbench
