// Whose failure an out-of-memory is. A tracer that runs out of its memory or fills its private
// tmpfs fails on its own, and its message names the limit it met. An out-of-memory in a lane's
// executor or reference (the device's memory, or the host's on the CPU) is retried with the device
// to the lane alone; if it runs out again it is the candidate's failure only when its own module
// needs more than the lane's share, else the harness's (docs/threat_model.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "pallasbench/orchestrate/memory_limits.hpp"

namespace pallasbench {

// XLA's RESOURCE_EXHAUSTED, CUDA's out-of-memory errors, Python's MemoryError, C++'s bad_alloc,
// ENOMEM: a process that could not get memory.
[[nodiscard]] bool mentions_out_of_memory(std::string_view text);
// ENOSPC: a file system (the tracer's tmpfs) is full.
[[nodiscard]] bool mentions_no_space(std::string_view text);

// The one allocation XLA says it could not make, from its RESOURCE_EXHAUSTED message ("Out of
// memory while trying to allocate 96.02GiB with allocator GPU_0_bfc"): at compile time, where no
// analysis of the module exists, the least the module needs. None when the message has no such
// sentence.
[[nodiscard]] std::optional<std::uint64_t> requested_allocation(std::string_view message);

// The memory XLA's analysis of the compiled module gives (the executor's `memory`: argument,
// output and temp bytes), summed; none when the analysis is missing.
[[nodiscard]] std::optional<std::uint64_t> module_bytes(const nlohmann::json& memory);

enum class oom_blame { candidate, harness };

// After the retry alone ran out of memory too: the candidate's when its module needs more than
// the share the lane's executor had; the harness's otherwise, or when either is unknown (a
// candidate is never blamed without its module's own numbers).
[[nodiscard]] oom_blame blame_out_of_memory(std::optional<std::uint64_t> module, std::optional<std::uint64_t> share);

// What a tracer's memory failure says of its limits: `message` with the limit it met named, or
// unchanged when neither the message nor `stderr_tail` is one of memory or space and the process
// was not killed at its cgroup's limit (`oom_killed`).
[[nodiscard]] std::string with_tracer_limits(const std::string& message, std::string_view stderr_tail,
                                             const memory_limit& limit, std::uint64_t tmpfs_bytes, bool oom_killed);

}  // namespace pallasbench
