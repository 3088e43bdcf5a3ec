// What the report stage's tables read from a record and how they write a time: one copy for the
// summary table and the comparison.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace pallasbench::detail {

// The number at `ptr` in `j`, or none when it is absent or not a number.
[[nodiscard]] std::optional<double> number_at(const nlohmann::json& j, const nlohmann::json::json_pointer& ptr);

// A user candidate's name: its batch request's id (a source string's file is a made-up name), else
// its file's name; "" for the suite's own kernel. The HTML report names it by the same rule
// (pallasbench.tools.records.candidate_name).
[[nodiscard]] std::string candidate_name(const nlohmann::json& record);

// Microseconds as "1.23 s", "4.56 ms" or "7.8 us" (`us_digits` decimals below a millisecond); "-"
// for none.
[[nodiscard]] std::string format_us(const std::optional<double>& us, int us_digits = 1);

}  // namespace pallasbench::detail
