// How much host memory a run's evaluations may hold at once, and how much each is expected to:
// the job board (job_board.hpp) keeps the estimates of the jobs in flight within the budget.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

#include "pallasbench/suite/task_info.hpp"

namespace pallasbench {

// Host bytes an evaluation is estimated to hold at its peak per byte of its task's byte model
// (inputs read and output written once, at the size and dtype): the reference, the checks and the
// executor each hold copies of the inputs and outputs of every seed and stress case, some in
// float64. Measured on the H200 host (bench/results/2026-12-04-h200/call_3/memory.log): 5 lanes
// of LARGE elementwise tasks (2.1 to 3.2 GB each) held up to 94 GiB, about 6.5 bytes a byte
// beside the idle workers; 8 leaves a margin.
inline constexpr double k_host_bytes_per_task_byte = 8.0;
// The share of the memory available when the run starts that the evaluations may hold together.
inline constexpr double k_default_memory_share = 0.85;

// The estimate for `task` at `size` and `dtype`; 0 where the task has no byte model.
[[nodiscard]] std::uint64_t evaluation_host_bytes(const task_info& task, problem_size size, float_dtype dtype);

// MemAvailable of a /proc/meminfo-format file, in bytes; none where it is missing or unreadable
// (not Linux).
[[nodiscard]] std::optional<std::uint64_t> available_host_memory(
    const std::filesystem::path& meminfo = "/proc/meminfo");

// `gib` > 0: that many GiB; 0: no budget; negative (the default): k_default_memory_share of the
// available memory now, or no budget where that cannot be read.
[[nodiscard]] std::uint64_t memory_budget_bytes(double gib, std::optional<std::uint64_t> available);

// What the evaluations leave free whatever the host does later (job_board.hpp's live limit):
// what was available at the start beyond the budget; 0 where either is unknown or none.
[[nodiscard]] std::uint64_t memory_reserve_bytes(std::uint64_t budget, std::optional<std::uint64_t> available);

}  // namespace pallasbench
