#include "pallasbench/check/platform.hpp"

#include <cmath>

#include <fmt/format.h>

namespace pallasbench {

bool needs_platform(const comparison& candidate, bool below_class) {
  // An output no bound can admit (shape, dtype, NaN/Inf where the reference is finite) needs none.
  if (candidate.unexpected_nonfinite > 0 || !std::isfinite(candidate.tolerance_ratio)) return false;
  return below_class || !candidate.passed;
}

comparison judged_by_tolerance(comparison candidate) {
  if (candidate.passed) candidate.passed_by = "tolerance";
  return candidate;
}

comparison judge_against_platform(comparison candidate, const comparison& platform, bool below_class) {
  candidate.platform_ratio = platform.tolerance_ratio;
  const bool platform_sound = platform.unexpected_nonfinite == 0 && std::isfinite(platform.tolerance_ratio);
  const double bound = k_platform_factor * platform.tolerance_ratio;
  const bool within_platform = platform_sound && candidate.unexpected_nonfinite == 0 &&
                               std::isfinite(candidate.tolerance_ratio) && candidate.tolerance_ratio <= bound;
  if (within_platform) {
    candidate.passed = true;
    candidate.passed_by = "platform";
    candidate.reason.clear();
    return candidate;
  }
  const std::string platform_error =
      platform_sound ? fmt::format("XLA's own at the task's precision class: {:.3g} of the tolerance, {:g}x that is {:.3g}",
                                   platform.tolerance_ratio, k_platform_factor, bound)
                     : "XLA's own output at the task's precision class is not finite where the reference is, so "
                       "only the tolerance counts";
  if (below_class) {
    candidate.reason = fmt::format("computes below the task's precision class, and its error ({:.3g} of the "
                                   "tolerance) is not within the platform's bound ({})",
                                   candidate.tolerance_ratio, platform_error);
  } else {
    candidate.reason = fmt::format("{}; not within the platform's bound either ({:.3g} of the tolerance; {})",
                                   candidate.reason, candidate.tolerance_ratio, platform_error);
  }
  candidate.passed = false;
  candidate.passed_by.clear();
  return candidate;
}

}  // namespace pallasbench
