// Accuracy against the platform (docs/measurement.md): a case's output passes when it is within
// the task's tolerance, or when its error is within k_platform_factor times the error XLA's own
// implementation makes at the task's precision class on the same inputs, both measured against
// the float64 reference. A fixed bound stricter than what the platform's own compiler achieves
// in float32 (a layernorm on rows offset by 1e3, an f32 sum of 2048 terms near zero) refuses
// honest kernels; a bound relative to the platform keeps unstable math out (softmax without its
// max, E[x^2] - E[x]^2: orders of magnitude past XLA) without a per-task constant.
//
// A kernel computing below its task's precision class (bf16 values in a float32 task, TF32 dots
// in one that does not declare USES_TF32, fp8 in a bfloat16 run) is judged by the platform bound
// alone, on every case: the tolerance was written for the class, not for a cheaper type that
// happens to fit it on N(0, 1) inputs.
#pragma once

#include "pallasbench/check/compare.hpp"

namespace pallasbench {

// k: how many times the platform's own error a case's error may be. 4 leaves room for a
// different but equally sound order of operations (blocked sums, a tree against a sequential
// reduction; measured: an honest two-pass layernorm at 1-2x XLA's error on the offset case), and
// stays below the 8x that a single bf16 rounding costs against TF32's 10 mantissa bits (3 bits
// fewer), so a plain-bf16 matmul in a TF32 task is still refused.
inline constexpr double k_platform_factor = 4;

// Whether a case needs the platform's output to be judged: it missed the tolerance (and might be
// within the platform's bound), or the kernel computes below the class (then the platform's
// bound is the only one).
[[nodiscard]] bool needs_platform(const comparison& candidate, bool below_class);

// The case's verdict: `candidate` (against the reference) judged with `platform` (XLA at the class
// against the same reference). The platform's bound counts only where XLA's output is finite
// wherever the reference is (an XLA overflow or NaN gives no licence). Sets platform_ratio,
// passed_by, and the reason when it fails.
[[nodiscard]] comparison judge_against_platform(comparison candidate, const comparison& platform, bool below_class);

// `candidate` judged by its tolerance alone (a case that does not need the platform).
[[nodiscard]] comparison judged_by_tolerance(comparison candidate);

}  // namespace pallasbench
