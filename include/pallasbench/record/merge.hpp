// `pallasbench merge`: the records files of several shards (or runs) as one, in the order one
// unsharded run writes them (docs/cluster.md).
#pragma once

#include <filesystem>
#include <ostream>
#include <stdexcept>
#include <vector>

#include <nlohmann/json.hpp>

namespace pallasbench {

// What merge refuses, before it writes anything: two different records of one configuration (or
// one uuid), two different artifact files of one name, an input it cannot read as records, an
// OUT that already holds records. The CLI's exit 2.
class merge_error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct merge_result {
  std::size_t records = 0;         // written to OUT/records.jsonl
  std::size_t duplicates = 0;      // records seen again byte for byte, kept once
  std::size_t artifact_files = 0;  // copied beside OUT/records.jsonl
};

// The order of an unsharded run: the selection's (level, then task name), then size (small,
// medium, large), then candidate (path, sha256); config_hash and uuid last, so that the order is
// total and does not depend on the order of the inputs.
[[nodiscard]] bool merge_order_less(const nlohmann::json& a, const nlohmann::json& b);

// Unions the records of `inputs` (folders holding records.jsonl, or records files) into
// out_dir/records.jsonl, written through record_writer (its lock, one append per record), and
// copies the artifact files the kept records name (artifacts.*.path, relative to their folder).
// An identical record seen again is kept once; a folder without records.jsonl (a shard that got
// no work) and a last line cut short are skipped with a warning, as are shards of one count N
// some index of which brought no record. Writes no records.jsonl when no record is merged.
merge_result merge_records(const std::filesystem::path& out_dir, const std::vector<std::filesystem::path>& inputs,
                           std::ostream& warnings);

}  // namespace pallasbench
