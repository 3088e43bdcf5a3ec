// Records every dataset reader loads as one table (Arrow: datasets, pyarrow, polars): a field has
// one type in every record, or is absent.
#pragma once

#include <nlohmann/json.hpp>

namespace pallasbench {

// The record in its stable form (docs/record_schema.md):
// - a member that would be null is left out (Arrow cannot cast a null column to an object or a
//   number found in a later file);
// - maps keyed by data (load widths, instruction names, stress cases) become lists of
//   {"key", "value"} entries, as Arrow's map type holds them, instead of objects whose fields
//   change from record to record.
[[nodiscard]] nlohmann::json arrow_stable(nlohmann::json record);

}  // namespace pallasbench
