// The dataset record of one evaluation (docs/architecture.md, "The record"; docs/record_schema.md).
#pragma once

#include <nlohmann/json.hpp>

#include "pallasbench/orchestrate/task_result.hpp"

namespace pallasbench {

// Arrow-stable and bounded (record/arrow_stable.hpp, record/record_bound.hpp).
[[nodiscard]] nlohmann::json to_record(const task_result& result);

}  // namespace pallasbench
