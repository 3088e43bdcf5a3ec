// A bound on a record's size: one line of records.jsonl never grows without limit.
#pragma once

#include <cstddef>

#include <nlohmann/json.hpp>

namespace pallasbench {

// 16 MiB: the largest H200 record with inline PTX and SASS measured 0.6 MiB (flash_attention,
// 2026-12-02); a candidate's source is capped at 1 MiB by default (--max-source-bytes).
inline constexpr std::size_t k_max_record_bytes = 16u << 20;

// Shrinks `record` to at most `max_bytes` serialized: the largest texts go first, in an order
// that keeps the verdict (inline compiler texts, then the IR, then the sources), each emptied or
// left out and named in `omitted` ("artifacts.ptx.text (5242880 bytes)"). Returns the number of
// fields omitted (0: the record was within the bound).
std::size_t bound_record(nlohmann::json& record, std::size_t max_bytes = k_max_record_bytes);

}  // namespace pallasbench
