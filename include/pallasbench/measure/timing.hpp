// What the timing of one evaluation measured: each side's samples, and the checks on them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pallasbench/measure/statistics.hpp"

namespace pallasbench {

struct timed_series {
  sample_summary summary;
  bool converged = false;
  std::string stopping;  // the stopping rule's final state
};

// One side's samples (the kernel's, or the XLA reference's) and what came with them.
struct timed_side {
  timed_series series;                                // over the samples the stopping rule saw (device time for cupti)
  std::vector<double> wall_us;                        // host wall time of each call (block_until_ready)
  std::vector<double> span_us;                        // cupti: first kernel start to last kernel end per sample
  std::vector<double> sm_clock_mhz;                   // cupti: the SM clock as each sample ended (NaN: not read)
  nlohmann::json kernels = nlohmann::json::object();  // cupti: name -> {count, total_us}
};

struct timing_result {
  std::string timer = "wall";              // "cupti" (device time) or "wall" (host clock)
  std::optional<std::string> timer_error;  // why a GPU run fell back to the wall clock
  timed_side kernel;
  std::optional<timed_side> reference;
  std::string reference_precision;
  std::optional<std::int64_t> l2_flush_bytes;
  std::optional<double> sm_clock_max_mhz;
  nlohmann::json inputs_seed;   // the timing input set's seed (never a checked one)
  nlohmann::json recheck;       // every batch's last output against the timing inputs' reference
  nlohmann::json launch_check;  // launch_check::to_json
  nlohmann::json floor;         // floor_check::to_json
};

}  // namespace pallasbench
