// Correctness over several seeds: each seed's comparison plus the determinism check.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pallasbench/check/compare.hpp"

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

// One stress case (docs/tasks.md, "Stress cases"): its inputs' seed and the comparison.
struct stress_outcome {
  std::string name;
  std::uint64_t seed = 0;
  double atol_scale = 1;  // the reference's RMS when above 1 (see stress_tolerance)
  comparison against_reference;
  std::optional<double> large_factor;  // the large case's factor as used (docs/dtypes.md); none for others
};

// The task's tolerance for a stress case: atol times the reference's RMS when that exceeds 1.
// An absolute bound written for O(1) outputs means nothing at 1e6 (the matmul class at x1e3):
// there even the f32 reference misses it on every near-zero element; rtol and the relative-norm
// bound stay as they are.
[[nodiscard]] tolerance stress_tolerance(const tolerance& tol, const npy_array& reference, double& atol_scale);

class correctness_report {
public:
  void add(seed_outcome outcome) { m_seeds.push_back(std::move(outcome)); }
  void add(stress_outcome outcome) { m_stress.push_back(std::move(outcome)); }
  void set_stress_skipped(std::map<std::string, std::string> skipped) { m_stress_skipped = std::move(skipped); }
  // The kernel computes below the task's precision class: every case was judged by the
  // platform's bound alone (check/platform.hpp).
  void set_below_class(bool below) { m_below_class = below; }

  [[nodiscard]] bool passed() const;
  // "seed 2: ...", "stress case 'offset' (seed 9): ..." or nullopt
  [[nodiscard]] std::optional<std::string> first_failure() const;
  [[nodiscard]] double max_abs_error() const;
  [[nodiscard]] double max_rel_error() const;
  [[nodiscard]] const std::vector<seed_outcome>& seeds() const { return m_seeds; }
  [[nodiscard]] const std::vector<stress_outcome>& stress() const { return m_stress; }
  [[nodiscard]] nlohmann::json to_json() const;

private:
  std::vector<seed_outcome> m_seeds;
  std::vector<stress_outcome> m_stress;
  std::map<std::string, std::string> m_stress_skipped;
  bool m_below_class = false;
};

}  // namespace pallasbench
