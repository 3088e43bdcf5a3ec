// Correctness over several seeds: each seed's comparison plus the determinism check.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pallasbench/compare.hpp"

namespace pallasbench {

struct seed_outcome {
  std::uint64_t seed = 0;
  comparison against_reference;
  // Second run on the same inputs: bit-for-bit equal, or (order-dependent tasks) within tolerance.
  bool deterministic = false;
  std::string determinism_detail;
};

// Checks a second run against the first: bitwise unless the task declares its result depends
// on the order of float atomics, then within the task's tolerance.
[[nodiscard]] seed_outcome check_seed(std::uint64_t seed, const npy_array& first, const npy_array& second,
                                      const npy_array& reference, const tolerance& tol, bool order_dependent);

class correctness_report {
public:
  void add(seed_outcome outcome) { m_seeds.push_back(std::move(outcome)); }

  [[nodiscard]] bool passed() const;
  [[nodiscard]] std::optional<std::string> first_failure() const;  // "seed 2: ..." or nullopt
  [[nodiscard]] double max_abs_error() const;
  [[nodiscard]] double max_rel_error() const;
  [[nodiscard]] const std::vector<seed_outcome>& seeds() const { return m_seeds; }
  [[nodiscard]] nlohmann::json to_json() const;

private:
  std::vector<seed_outcome> m_seeds;
};

}  // namespace pallasbench
