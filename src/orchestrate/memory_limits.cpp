#include "pallasbench/orchestrate/memory_limits.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace pallasbench {
namespace {

std::uint64_t gib_to_bytes(double gib) { return static_cast<std::uint64_t>(gib * static_cast<double>(k_gib)); }

std::uint64_t tmpfs_total(std::uint64_t tmpfs) { return 2 * tmpfs + 2 * k_small_tmpfs; }

std::uint64_t default_tracer_bytes(const memory_request& r, std::uint64_t tmpfs) {
  const std::uint64_t floor = k_tracer_base + k_tracer_per_core * r.cores + tmpfs_total(tmpfs);
  if (r.budget == 0) return std::max(floor, k_tracer_ceiling);
  const auto quarter_lane = r.budget / (k_tracer_shares_per_lane * std::max<std::size_t>(r.lanes, 1));
  return std::clamp(quarter_lane, floor, std::max(floor, k_tracer_ceiling));
}

std::uint64_t tracer_bytes(const memory_request& r, std::uint64_t tmpfs) {
  if (!r.tracer_gib) return default_tracer_bytes(r, tmpfs);
  if (!(std::isfinite(*r.tracer_gib) && *r.tracer_gib > 0))
    throw std::invalid_argument(fmt::format("--tracer-memory {}: a positive number of GiB", *r.tracer_gib));
  const auto bytes = gib_to_bytes(*r.tracer_gib);
  const auto needed = tmpfs_total(tmpfs) + k_tracer_min_data;
  if (bytes < needed)
    throw std::invalid_argument(fmt::format(
        "--tracer-memory {}: a tracer's share must hold its private /tmp and /dev/shm ({} each, --tracer-tmpfs) "
        "and {} of its own for JAX: at least {}",
        *r.tracer_gib, format_bytes(tmpfs), format_bytes(k_tracer_min_data), format_bytes(needed)));
  return bytes;
}

std::uint64_t worker_bytes(const memory_request& r, std::uint64_t tracer) {
  if (r.worker_gib) {
    if (!(std::isfinite(*r.worker_gib) && *r.worker_gib >= 0))
      throw std::invalid_argument(fmt::format("--worker-memory {}: a number of GiB, 0 for no limit", *r.worker_gib));
    return gib_to_bytes(*r.worker_gib);
  }
  // What the budget leaves beside one tracer: a job too large to share the budget runs alone.
  return r.budget > tracer ? r.budget - tracer : 0;
}

double device_share(const memory_request& r) {
  if (r.device_share) {
    if (!(*r.device_share > 0 && *r.device_share <= 1))
      throw std::invalid_argument(
          fmt::format("--device-share {}: a fraction of the GPU's memory in (0, 1]", *r.device_share));
    return *r.device_share;
  }
  if (!r.gpu) return 0;
  // Each lane on a device runs an executor and a reference, each with its own pool.
  return k_device_memory_for_shares / static_cast<double>(2 * std::max<std::size_t>(r.lanes_per_device, 1));
}

}  // namespace

std::string format_bytes(std::uint64_t bytes) {
  if (bytes >= k_gib) return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / static_cast<double>(k_gib));
  if (bytes >= k_mib) return fmt::format("{:.0f} MiB", static_cast<double>(bytes) / static_cast<double>(k_mib));
  return fmt::format("{} bytes", bytes);
}

nlohmann::json memory_limit::to_json() const {
  nlohmann::json out = {{"mechanism", to_string(mechanism)}, {"bytes", bytes}, {"detail", detail}};
  if (!no_cgroup.empty()) out["no_cgroup"] = no_cgroup;
  return out;
}

std::string memory_limit::describe() const {
  if (mechanism == memory_mechanism::none) return "no memory limit";
  return fmt::format("{} ({})", format_bytes(bytes), detail);
}

double memory_plan::alone_device_share() const {
  if (device_share <= 0) return 0;
  return std::max(device_share, std::min(device_share * lanes_on_device, k_device_memory_for_shares / 2));
}

nlohmann::json memory_plan::to_json() const {
  return {{"budget", budget},
          {"tracer", tracer_bytes},
          {"tracer_tmpfs", tmpfs_bytes},
          {"worker", worker_bytes},
          {"device_share", device_share}};
}

memory_plan plan_memory(const memory_request& r) {
  memory_plan plan;
  plan.budget = r.budget;
  if (r.tmpfs_mib && !(std::isfinite(*r.tmpfs_mib) && *r.tmpfs_mib >= 1))
    throw std::invalid_argument(fmt::format("--tracer-tmpfs {}: at least 1 MiB", *r.tmpfs_mib));
  plan.tmpfs_bytes =
      r.tmpfs_mib ? static_cast<std::uint64_t>(*r.tmpfs_mib * static_cast<double>(k_mib)) : k_default_tracer_tmpfs;
  plan.tracer_bytes = tracer_bytes(r, plan.tmpfs_bytes);
  plan.worker_bytes = worker_bytes(r, plan.tracer_bytes);
  plan.device_share = device_share(r);
  plan.lanes_on_device = static_cast<double>(std::max<std::size_t>(r.lanes_per_device, 1));
  return plan;
}

}  // namespace pallasbench
