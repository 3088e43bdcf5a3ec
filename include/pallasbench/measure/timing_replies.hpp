// Folding the worker's timing replies (batches of samples) into a side's record.
#pragma once

#include <nlohmann/json.hpp>

#include "pallasbench/measure/timing.hpp"
#include "pallasbench/measure/stopping.hpp"

namespace pallasbench {

// One side's running state while it is sampled: the rule that decides when it has enough, the
// host time its samples cost, and what the record keeps of them.
struct side_sampling {
  explicit side_sampling(const stdrel_options& options) : rule(options) {}
  stdrel_criterion rule;
  double cost_us = 0;
  timed_side kept{};
  [[nodiscard]] double typical_cost_us() const {
    return rule.samples().empty() ? 0 : cost_us / static_cast<double>(rule.samples().size());
  }
};

// Adds one reply of the worker's "time"/"time_reference": samples_us (with cost_us when the
// device timer sent it) to the rule; wall/span/clock series and per-kernel totals to `side.kept`;
// timer kind, timer error and flush size to `timing`. Throws std::runtime_error for a reply whose
// series disagree in length.
void add_timing_reply(const nlohmann::json& reply, side_sampling& side, timing_result& timing);

// Samples asked of a worker at once: about batch_seconds of host time, from what a sample cost
// so far (min_samples before the first batch), between 1 and 1000.
[[nodiscard]] int batch_size(double typical_cost_us, double batch_seconds, std::size_t min_samples);

// Whether the kernel's batch number `batch` (1-based) has its last output rechecked: batches 1,
// 2, 4, 8, ... Saving and comparing an output costs a LARGE elementwise task ~0.2 s per batch
// under the device's exclusive lease, more than its samples. A compiled module keeps no state
// between calls: on the same inputs its output can change only through what earlier calls left
// on the device (a buffer handed back), and batch 1's last call already follows many. A kernel
// that does less work while its output stays right is the roofline floor's to catch.
[[nodiscard]] bool rechecked_batch(int batch);

}  // namespace pallasbench
