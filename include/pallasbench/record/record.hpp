// The record's schema version and the JSON of its measured parts (docs/architecture.md's
// record; docs/record_schema.md). orchestrate/task_record.hpp assembles a whole record from them.
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "pallasbench/measure/metrics.hpp"
#include "pallasbench/measure/timing.hpp"
#include "pallasbench/record/verdict.hpp"

namespace pallasbench {

// 2: Arrow-stable (no nulls, keyed maps as entry lists, artifacts always objects; see
// docs/record_schema.md).
inline constexpr int k_schema_version = 2;

// A finite number, else null (which arrow_stable then drops).
[[nodiscard]] nlohmann::json optional_number(const std::optional<double>& value);

// The record's `timing`: the kernel's series, the reference's, the speedup with its interval, the
// clock, the kernels' shares and the timing checks.
[[nodiscard]] nlohmann::json timing_json(const timing_result& timing);

// The record's `roofline`: the work models and what the kernel achieved against the ceilings.
[[nodiscard]] nlohmann::json roofline_json(const work_counts& work, const roofline_estimate& achieved);

// The record's `passed` (verdict.hpp's one definition, stored when the record is made). A record
// written before the field existed (schema 2 binaries up to 2026-12-05) is read through the same
// definition from its status and result.robustness_passed; an unknown status has not passed.
[[nodiscard]] bool record_passed(const nlohmann::json& record);

// The record's `timing.speedup` (metrics.hpp's speedup(), stored when the record is made): none
// where the record has none (wall-clock timing, no timing, a failed evaluation).
[[nodiscard]] std::optional<double> record_speedup(const nlohmann::json& record);

// The record's `error`: phase, message and traceback (text made valid UTF-8), and `lowering` when
// a kernel failed to lower.
[[nodiscard]] nlohmann::json failure_json(const failure_info& failure);

// The lowering help of a worker's error reply (its `lowering` object): strings where strings
// belong (anything else reads as ""), each cut to k_lowering_text_bytes, at most
// k_lowering_fixes fixes; nullopt when the reply has none or it says nothing.
inline constexpr std::size_t k_lowering_text_bytes = 4096;
inline constexpr std::size_t k_lowering_fixes = 8;
[[nodiscard]] std::optional<lowering_help> lowering_help_from_json(const nlohmann::json& reply);

}  // namespace pallasbench
