// source_analysis: the work happens inside the Pallas kernels. The verdict rests on the analysis
// of the module the executor deserialized (module_analysis: StableHLO and the kernels' IR); the
// source scan and the tracer's list of task files it saw imported only ever add reasons to refuse.
#pragma once

#include "pallasbench/check/filters/filter.hpp"

namespace pallasbench {

namespace thresholds {
// Layout around a kernel (pad, reshape, slice) does no arithmetic and is free; an honest epilogue
// (split-K partial results combined in XLA, as JAX's own decode attention does: 1.5-2.8% of the
// task) stays well under 5%, while every XLA-does-the-work cheat of the corpus puts 50% or more
// outside. Dots, gathers, scatters, sorts and casts are refused outside whatever their share
// (module_analysis.hpp), so 5% buys no matmul.
inline constexpr double max_outside_work = 0.05;
// Data movement outside the kernels (module_analysis.hpp), over the task's volume in bytes: the
// suite's honest kernels move at most 11.8% (triangle_update at SMALL, its channel-major
// transposes; every other task 0 once its weights are packing), while leaving a data-movement
// task's movement to XLA moves half its byte model or more (the output once: reverse_complement's
// flip 50%), so 25% sits between the two, a factor of two from each.
inline constexpr double max_moved_share = 0.25;
// Outside ops on at most this many elements are scalar setup.
inline constexpr double scalar_setup_elements = 64;
}  // namespace thresholds

class source_analysis_filter final : public robustness_filter {
private:
  [[nodiscard]] filter_description do_describe() const override;
  [[nodiscard]] filter_result do_evaluate(const filter_inputs& in) const override;
};

}  // namespace pallasbench
