#include "pallasbench/check/correctness.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "pallasbench/check/platform.hpp"

namespace pallasbench {

seed_outcome check_seed(std::uint64_t seed, const npy_array& first, const npy_array& second, const npy_array& reference,
                        const tolerance& tol, bool order_dependent) {
  seed_outcome outcome;
  outcome.seed = seed;
  outcome.against_reference = compare(first, reference, tol);
  if (order_dependent) {
    const auto again = compare(second, first, tol);
    outcome.deterministic = again.passed;
    outcome.determinism_detail =
        again.passed ? "second run within tolerance (order-dependent task)" : "second run differs: " + again.reason;
  } else {
    outcome.deterministic = bitwise_equal(first, second);
    outcome.determinism_detail =
        outcome.deterministic ? "second run bit-identical" : "second run on the same inputs is not bit-identical";
  }
  return outcome;
}

tolerance stress_tolerance(const tolerance& tol, const npy_array& reference, double& atol_scale) {
  double sum_sq = 0;
  std::size_t finite = 0;
  visit_elements(reference, [&]<class T>(std::span<const T> values) {
    for (const T v : values) {
      const auto x = static_cast<double>(v);
      if (std::isfinite(x)) {
        sum_sq += x * x;
        ++finite;
      }
    }
  });
  const double rms = finite ? std::sqrt(sum_sq / static_cast<double>(finite)) : 0.0;
  atol_scale = std::max(1.0, rms);
  return {tol.atol * atol_scale, tol.rtol, tol.rel_norm};
}

namespace {
std::string hint_of(const comparison& c) { return c.hint.empty() ? "" : "; " + c.hint; }
}  // namespace

bool correctness_report::passed() const { return !m_seeds.empty() && !first_failure(); }

std::optional<std::string> correctness_report::first_failure() const {
  for (const auto& s : m_seeds) {
    if (!s.against_reference.passed)
      return fmt::format("seed {}: {}{}", s.seed, s.against_reference.reason, hint_of(s.against_reference));
    if (!s.deterministic) return fmt::format("seed {}: {}", s.seed, s.determinism_detail);
  }
  for (const auto& s : m_stress)
    if (!s.against_reference.passed)
      return fmt::format("stress case '{}' (seed {}): {}{}", s.name, s.seed, s.against_reference.reason,
                         hint_of(s.against_reference));
  return std::nullopt;
}

double correctness_report::max_abs_error() const {
  double worst = 0;
  for (const auto& s : m_seeds) worst = std::max(worst, s.against_reference.max_abs_error);
  return worst;
}

double correctness_report::max_rel_error() const {
  double worst = 0;
  for (const auto& s : m_seeds) worst = std::max(worst, s.against_reference.max_rel_error);
  return worst;
}

namespace {
nlohmann::json finite_or_null(double value) { return std::isfinite(value) ? nlohmann::json(value) : nullptr; }

nlohmann::json comparison_json(const comparison& c) {
  nlohmann::json j = {{"passed", c.passed},
                      {"reason", c.reason},
                      {"elements", c.elements},
                      {"mismatches", c.mismatches},
                      {"unexpected_nonfinite", c.unexpected_nonfinite},
                      {"max_abs_error", finite_or_null(c.max_abs_error)},
                      {"max_rel_error", finite_or_null(c.max_rel_error)},
                      {"rel_norm_error", finite_or_null(c.rel_norm_error)},
                      {"tolerance_ratio", finite_or_null(c.tolerance_ratio)}};
  if (c.platform_ratio) j["platform_ratio"] = finite_or_null(*c.platform_ratio);
  if (!c.passed_by.empty()) j["passed_by"] = c.passed_by;
  // What failed, from the data (empty once passed, the platform rule's pass included).
  j["worst"] = nlohmann::json::array();
  if (!c.passed)
    for (const auto& w : c.worst)
      j["worst"].push_back({{"index", w.index},
                            {"candidate", finite_or_null(w.candidate)},
                            {"reference", finite_or_null(w.reference)},
                            {"error", finite_or_null(w.error)}});
  j["hint"] = c.passed ? "" : c.hint;
  return j;
}
}  // namespace

nlohmann::json correctness_report::to_json() const {
  auto seeds = nlohmann::json::array();
  for (const auto& s : m_seeds) {
    auto entry = comparison_json(s.against_reference);
    entry["seed"] = s.seed;
    entry["deterministic"] = s.deterministic;
    entry["determinism"] = s.determinism_detail;
    seeds.push_back(std::move(entry));
  }
  auto stress = nlohmann::json::array();
  for (const auto& s : m_stress) {
    auto entry = comparison_json(s.against_reference);
    entry["case"] = s.name;
    entry["seed"] = s.seed;
    entry["atol_scale"] = s.atol_scale;
    if (s.large_factor) entry["large_factor"] = *s.large_factor;
    stress.push_back(std::move(entry));
  }
  return {{"passed", passed()},
          {"seeds", seeds},
          {"stress", stress},
          {"stress_skipped", m_stress_skipped},
          {"below_class", m_below_class},
          {"platform_factor", k_platform_factor}};
}

}  // namespace pallasbench
