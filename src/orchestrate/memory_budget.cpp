#include "pallasbench/orchestrate/memory_budget.hpp"

#include <fstream>
#include <sstream>
#include <string>

namespace pallasbench {

std::uint64_t evaluation_host_bytes(const task_info& task, problem_size size, float_dtype dtype) {
  const auto bytes = task.at(dtype).bytes_at(size);
  return bytes && *bytes > 0 ? static_cast<std::uint64_t>(*bytes * k_host_bytes_per_task_byte) : 0;
}

std::optional<std::uint64_t> available_host_memory(const std::filesystem::path& meminfo) {
  std::ifstream in(meminfo);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string key, unit;
    std::uint64_t value = 0;
    if (fields >> key >> value >> unit && key == "MemAvailable:" && unit == "kB") return value * 1024;
  }
  return std::nullopt;
}

std::uint64_t memory_budget_bytes(double gib, std::optional<std::uint64_t> available) {
  if (gib > 0) return static_cast<std::uint64_t>(gib * 1024 * 1024 * 1024);
  if (gib == 0 || !available) return 0;
  return static_cast<std::uint64_t>(static_cast<double>(*available) * k_default_memory_share);
}

std::uint64_t memory_reserve_bytes(std::uint64_t budget, std::optional<std::uint64_t> available) {
  if (budget == 0 || !available || *available <= budget) return 0;
  return *available - budget;
}

}  // namespace pallasbench
