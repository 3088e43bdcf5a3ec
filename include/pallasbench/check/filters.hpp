// Robustness filters: does a kernel that passes the tolerance really compute the task?
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pallasbench/check/compare.hpp"
#include "pallasbench/analyze/module_analysis.hpp"
#include "pallasbench/check/npy.hpp"

namespace pallasbench {

struct filter_result {
  bool passed = false;
  double value = 0;
  double threshold = 0;
  std::string reason;
  [[nodiscard]] nlohmann::json to_json() const;
};

// The output and reference of one evaluation of the kernel.
struct output_pair {
  const npy_array* output;
  const npy_array* reference;
};

// The kernel and reference before and after one input was perturbed within its domain.
struct perturbation {
  std::string input;
  output_pair base;
  output_pair perturbed;
};

// Range and moments of an array's finite elements. Mean and M2 (the sum of squared deviations
// from the mean) rather than raw sums: merging parts (Chan et al.) keeps the std accurate when
// the mean is large against the spread.
struct value_moments {
  double min = 0, max = 0, mean = 0, m2 = 0;
  std::size_t count = 0, nonfinite = 0;
  [[nodiscard]] double range() const { return count ? max - min : 0; }
  [[nodiscard]] double stdev() const;  // population std (over count)
  void merge(const value_moments& part);
};

// Moments of the finite elements of values, computed as the filters compute them (blocks with
// float partials, merged in double); exposed for tests.
[[nodiscard]] value_moments moments_of(std::span<const float> values);

// Mean over the size elements of the std (over k - 1) across the k arrays (seeds) of each
// element; an element where some array is not finite adds 0. As the std filter computes it (per
// element in float where that is good to a few roundings, within 3.3e-7 relative, else in
// double; sums in double); exposed for tests.
[[nodiscard]] double mean_std_across(std::span<const float* const> seeds, std::size_t size);

// Along one axis: how many 1-D slices vary in the reference beyond rounding, and of those,
// in how many the output varies too.
struct axis_variation {
  bool checked = true;  // false: too many slices to keep per-slice extremes in one pass
  std::size_t reference_varies = 0;
  std::size_t both_vary = 0;
};

// One pass over an (output, reference) pair: what the range, std and axes filters read.
struct pair_profile {
  value_moments output, reference;
  std::vector<axis_variation> axes;  // empty when the shapes differ
};

[[nodiscard]] pair_profile profile_pair(const npy_array& output, const npy_array& reference);

// What the range and std filters read of the seeds: each seed's moments (output and reference),
// and over elements the mean std across seeds, of the outputs and of the references.
struct seed_summary {
  std::vector<value_moments> outputs, references;
  bool across = false;  // at least 2 seeds, each output shaped as its reference: the two below
  double output_std_across = 0, reference_std_across = 0;
};

// Everything a filter may look at; a filter whose evidence is missing fails and says so.
struct filter_inputs {
  std::vector<output_pair> seeds;
  std::vector<perturbation> perturbations;
  std::size_t input_count = 0;
  const module_analysis* analysis = nullptr;     // of the module the executor deserialized
  std::string source;                            // the candidate file as authored (read by the harness)
  std::vector<std::string> task_modules_loaded;  // task files the tracer saw the candidate import
  tolerance tol;

  // profile_pair of a seed's pair, computed once for all filters.
  [[nodiscard]] const pair_profile& profile(const output_pair& pair) const;
  // The seeds' summary, computed once for these seeds: seed 0's profile, then (float32 seeds of
  // one size) one pass over the outputs and one over the references for the std across seeds and
  // the other seeds' moments; otherwise each seed's profile, and the std across seeds apart.
  [[nodiscard]] const seed_summary& summary() const;

private:
  mutable std::map<std::pair<const npy_array*, const npy_array*>, pair_profile> m_profiles;
  mutable std::optional<seed_summary> m_summary;
  mutable std::vector<output_pair> m_summary_of;  // the seeds it summarises
};

class robustness_filter {
public:
  virtual ~robustness_filter() = default;
  [[nodiscard]] virtual std::string name() const = 0;
  [[nodiscard]] virtual filter_result evaluate(const filter_inputs& in) const = 0;
};

// Named thresholds (each with why in filters.cpp).
namespace thresholds {
inline constexpr double min_range_ratio = 0.5;
inline constexpr double min_std_ratio = 0.5;
inline constexpr double min_varying_slices = 0.9;
inline constexpr double max_impact_deviation = 0.25;
inline constexpr double max_outside_work = 0.05;
inline constexpr double scalar_setup_elements = 64;
}  // namespace thresholds

class output_range_filter final : public robustness_filter {
public:
  [[nodiscard]] std::string name() const override { return "output_range"; }
  [[nodiscard]] filter_result evaluate(const filter_inputs& in) const override;
};

class output_std_filter final : public robustness_filter {
public:
  [[nodiscard]] std::string name() const override { return "output_std"; }
  [[nodiscard]] filter_result evaluate(const filter_inputs& in) const override;
};

class axes_variation_filter final : public robustness_filter {
public:
  [[nodiscard]] std::string name() const override { return "axes_variation"; }
  [[nodiscard]] filter_result evaluate(const filter_inputs& in) const override;
};

class input_impact_filter final : public robustness_filter {
public:
  [[nodiscard]] std::string name() const override { return "input_impact"; }
  [[nodiscard]] filter_result evaluate(const filter_inputs& in) const override;
};

class source_analysis_filter final : public robustness_filter {
public:
  [[nodiscard]] std::string name() const override { return "source_analysis"; }
  [[nodiscard]] filter_result evaluate(const filter_inputs& in) const override;
};

// The five filters, in record order.
[[nodiscard]] std::vector<std::unique_ptr<robustness_filter>> default_filters();

// Runs every filter; a filter that throws is a failed filter with the exception as reason.
[[nodiscard]] nlohmann::json run_filters(const std::vector<std::unique_ptr<robustness_filter>>& filters,
                                         const filter_inputs& in, bool& all_passed);

}  // namespace pallasbench
