// The Mann-Whitney U test (Wilcoxon rank-sum), two-sided, as google-benchmark's tools/compare.py
// applies it to two sets of repetitions (through scipy.stats.mannwhitneyu's defaults): the exact
// distribution of U when a sample has at most 8 values and no value is tied, else the normal
// approximation with the tie correction and a continuity correction of 0.5. Written here because
// the harness has no statistics library (scipy is not a dependency, and the C++ side has none).
#pragma once

#include <span>

namespace pallasbench {

struct u_test_result {
  double u = 0;        // U of the first sample: pairs (x, y) with x > y, a tie counting one half
  double p_value = 1;  // two-sided
  bool exact = false;  // the exact distribution, not the normal approximation
};

// Both samples need at least one value (std::invalid_argument otherwise).
[[nodiscard]] u_test_result mann_whitney_u(std::span<const double> x, std::span<const double> y);

}  // namespace pallasbench
