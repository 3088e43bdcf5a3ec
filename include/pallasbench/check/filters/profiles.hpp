// What the value filters (output_range, output_std, axes_variation) read of outputs and their
// references: the moments of each array, per axis how many slices vary, and the std across seeds.
// One pass computes each, vectorised (src/check/detail/); the functions here are exposed for tests.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "pallasbench/check/npy.hpp"

namespace pallasbench {

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
// float partials, merged in double).
[[nodiscard]] value_moments moments_of(std::span<const float> values);

// Mean over the size elements of the std (over k - 1) across the k arrays (seeds) of each
// element; an element where some array is not finite adds 0. As the std filter computes it (per
// element in float where that is good to a few roundings, within 3.3e-7 relative, else in
// double; sums in double).
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

}  // namespace pallasbench
