// --shard I/N: a deterministic share of the work for one of N machines (docs/cluster.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "pallasbench/suite/size.hpp"
#include "pallasbench/suite/task_info.hpp"

namespace pallasbench {

// One evaluation to be done: what decides which shard does it.
struct work_item {
  std::string task;
  problem_size size = problem_size::small;
  // The task's output dtype at the run's dtype (task_info::at): float32 runs keep the keys they
  // had before the dtype axis; a task with no float input has one key at every dtype (the same
  // evaluation).
  std::string dtype;
  std::string candidate_sha256;
  std::string backend;  // a suite task's implementation; "" for a user candidate (left out of the text)

  // The task's own kernel (`run`) or a user candidate (`eval`) at one size and dtype.
  [[nodiscard]] static work_item of(const task_info& task, problem_size size, float_dtype dtype,
                                    std::string candidate_sha256, std::optional<kernel_backend> backend = {});

  // Canonical JSON (sorted keys, no spaces): the text the shard is hashed from, so an item's
  // shard depends on the item alone, never on what else is selected.
  [[nodiscard]] std::string canonical_text() const;
};

class shard_spec {
public:
  // 1 <= index <= count; std::invalid_argument otherwise.
  shard_spec(int index, int count);

  // "I/N" (1-based). std::invalid_argument saying what is wrong, prefixed with the text
  // ("4/3: the index must be in 1..3"); the CLI puts the flag's name before it.
  [[nodiscard]] static shard_spec parse(std::string_view text);

  // FNV-1a 64 of the item's canonical text, scaled to 0..count-1 by its high 32 bits, is index - 1.
  [[nodiscard]] bool contains(const work_item& item) const;

  [[nodiscard]] int index() const { return m_index; }
  [[nodiscard]] int count() const { return m_count; }
  [[nodiscard]] std::string to_string() const;   // "I/N"
  [[nodiscard]] nlohmann::json to_json() const;  // {"index": I, "count": N}: the record's `shard`

  friend bool operator==(const shard_spec&, const shard_spec&) = default;

private:
  int m_index;
  int m_count;
};

// The tasks of `shard`'s share, in their order, for one candidate: `candidate_sha256`, or each
// task's own kernel (its file's sha256) when empty.
[[nodiscard]] std::vector<task_info> shard_share(const std::vector<task_info>& tasks, const shard_spec& shard,
                                                 problem_size size, float_dtype dtype = float_dtype::float32,
                                                 const std::string& candidate_sha256 = "");

}  // namespace pallasbench
