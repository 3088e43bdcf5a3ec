// How much memory each process of a run may hold, derived from the run's host-memory budget
// (memory_budget.hpp), and how the bound is enforced: a cgroup v2 memory limit where the machine
// delegates one to the harness (cgroup.hpp), else rlimits. docs/architecture.md ("Memory") gives
// the arithmetic.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "pallasbench/core/enum_names.hpp"

namespace pallasbench {

inline constexpr std::uint64_t k_mib = std::uint64_t{1} << 20;
inline constexpr std::uint64_t k_gib = std::uint64_t{1} << 30;

// What bounds a process's memory: a cgroup's memory.max (its pages, tmpfs pages included, with
// no swap), rlimits (data, and address space for a tracer: bounds on what it can map, not on
// what it touches), or nothing (no budget).
enum class memory_mechanism { cgroup, rlimit, none };

template <>
struct enum_names<memory_mechanism> {
  static constexpr std::string_view what = "memory limit mechanism";
  static constexpr std::array entries{
      std::pair{memory_mechanism::cgroup, std::string_view("cgroup")},
      std::pair{memory_mechanism::rlimit, std::string_view("rlimit")},
      std::pair{memory_mechanism::none, std::string_view("none")},
  };
};

// One process's bound, as its record tells it (`trust.tracer_sandbox.memory_limit`,
// `trust.worker_memory`).
struct memory_limit {
  memory_mechanism mechanism = memory_mechanism::none;
  std::uint64_t bytes = 0;  // 0 with mechanism none
  std::string detail;       // what exactly: "RLIMIT_AS", "cgroup <path>: memory.max, memory.swap.max 0"
  std::string no_cgroup;    // under rlimits: why the machine gave no cgroup (left out of the JSON when empty)
  [[nodiscard]] nlohmann::json to_json() const;
  // "1.5 GiB (RLIMIT_AS)", for failure messages.
  [[nodiscard]] std::string describe() const;
};

// "1.5 GiB", "256 MiB".
[[nodiscard]] std::string format_bytes(std::uint64_t bytes);

// ---- the defaults and the floors -------------------------------------------------------------
// A tracer's private /tmp and /dev/shm are each a tmpfs of this size (memory pages: counted in its
// share); /run and /var/tmp, masks nothing of ours writes to, get k_small_tmpfs each.
inline constexpr std::uint64_t k_default_tracer_tmpfs = 256 * k_mib;
inline constexpr std::uint64_t k_small_tmpfs = 1 * k_mib;
// What a tracer's data (heap, thread stacks, private mappings) needs at the least: JAX imported
// held 0.2 GiB on a 2-core machine and 1.45 GiB on the 16-core H100 host (65 threads of 8 MiB
// stacks, about 4 a core; 0.55 GiB resident), a trace a little more.
inline constexpr std::uint64_t k_tracer_base = 3 * k_gib / 2;
inline constexpr std::uint64_t k_tracer_per_core = 32 * k_mib;
inline constexpr std::uint64_t k_tracer_ceiling = 8 * k_gib;
// Under rlimits a tracer's address space may exceed its data by this much: the libraries JAX
// maps (the CUDA plugin's, loaded even on a CPU backend, about 2 GiB of the 3.6 GiB JAX mapped on
// the H100 host). It also bounds what shared mappings, which are no data, can hold.
inline constexpr std::uint64_t k_tracer_mapped_libraries = 4 * k_gib;
// Without --tracer-memory a tracer gets a quarter of a lane's share of the budget, between the
// floor (the base, a core's threads' stacks, its tmpfs) and the ceiling.
inline constexpr std::size_t k_tracer_shares_per_lane = 4;
// The smallest data --tracer-memory may leave a tracer beside its tmpfs.
inline constexpr std::uint64_t k_tracer_min_data = 512 * k_mib;
// The part of a GPU that the lanes' executors and references split evenly (XLA's BFC allocator
// limit, XLA_PYTHON_CLIENT_MEM_FRACTION); the rest is for the CUDA contexts (~0.5 GiB each) and
// allocations outside XLA's pool.
inline constexpr double k_device_memory_for_shares = 0.75;

// What a run asks for: its budget, its lanes, and the flags that override the defaults.
struct memory_request {
  std::uint64_t budget = 0;  // host bytes the evaluations may hold (memory_budget_bytes); 0: none
  std::size_t lanes = 1;
  std::size_t lanes_per_device = 1;  // the most lanes sharing one GPU
  unsigned cores = 1;
  bool gpu = false;
  std::optional<double> tracer_gib;    // --tracer-memory
  std::optional<double> tmpfs_mib;     // --tracer-tmpfs
  std::optional<double> worker_gib;    // --worker-memory (0: none)
  std::optional<double> device_share;  // --device-share
};

// Each process's share. The job board counts tracer_bytes beside each job's estimate, so the jobs
// in flight and their tracers fit the budget together; an executor or a reference may hold what
// the budget leaves beside one tracer (a job too large for the others runs alone).
struct memory_plan {
  std::uint64_t budget = 0;
  std::uint64_t tracer_bytes = 0;  // a tracer's whole share, its tmpfs included
  std::uint64_t tmpfs_bytes = 0;   // size= of its private /tmp, and of its /dev/shm
  std::uint64_t worker_bytes = 0;  // each executor's and reference's host memory; 0: no limit
  double device_share = 0;         // each executor's and reference's fraction of its GPU; 0: unset
  double lanes_on_device = 1;      // the lanes that split the device (device_share's denominator)

  // The share of an executor and a reference whose lane holds the device alone (an out-of-memory
  // retried): every lane's share together (at most what the lanes split, halved between the two),
  // never less than its own; 0 when unset.
  [[nodiscard]] double alone_device_share() const;

  // What the tracer's tmpfs mounts may hold together (/tmp, /dev/shm, /run, /var/tmp).
  [[nodiscard]] std::uint64_t tracer_tmpfs_total() const { return 2 * tmpfs_bytes + 2 * k_small_tmpfs; }
  // Under rlimits, the tracer's RLIMIT_DATA: its share less what its tmpfs may hold (tmpfs pages
  // are no data of its own). Under a cgroup the tmpfs is charged to it: the whole share.
  [[nodiscard]] std::uint64_t tracer_data() const { return tracer_bytes - tracer_tmpfs_total(); }
  // Its RLIMIT_AS: its data and the libraries it maps.
  [[nodiscard]] std::uint64_t tracer_address_space() const { return tracer_data() + k_tracer_mapped_libraries; }
  [[nodiscard]] nlohmann::json to_json() const;
};

// The plan for `request`; std::invalid_argument naming the flag for a share that cannot work (a
// tracer too small for its tmpfs and JAX, a device share outside (0, 1]).
[[nodiscard]] memory_plan plan_memory(const memory_request& request);

}  // namespace pallasbench
