// Elementwise and norm comparison of a kernel's output against the reference.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pallasbench/check/npy.hpp"
#include "pallasbench/suite/tolerance.hpp"

namespace pallasbench {

// One element of a failed comparison: where it is, what the candidate and the reference hold and
// |candidate - reference| (infinite where either is NaN/Inf and they differ).
struct worst_element {
  std::vector<std::int64_t> index;
  double candidate = 0;
  double reference = 0;
  double error = 0;
};

inline constexpr std::size_t k_worst_elements = 8;

struct comparison {
  bool passed = false;
  std::string reason;  // empty when passed
  std::size_t elements = 0;
  std::size_t mismatches = 0;            // elements outside the elementwise tolerance
  std::size_t unexpected_nonfinite = 0;  // NaN/Inf in the output where the reference is finite
  double max_abs_error = 0;
  // max |out-ref| / |ref| over elements with |ref| >= k_rel_error_floor: near-zero references
  // are judged by atol alone, a ratio there says nothing.
  double max_rel_error = 0;
  double rel_norm_error = 0;
  // The error as a multiple of the tolerance: the largest of |out-ref| / (atol + rtol*|ref|) over
  // the elements and rel_norm_error / rel_norm (above 1 fails the tolerance); infinite for a
  // NaN/Inf where the reference is finite, a shape or dtype mismatch, or any error against a zero
  // bound. What the platform rule compares (check/platform.hpp).
  double tolerance_ratio = 0;
  // Set by the platform rule when it ran: XLA's own tolerance_ratio at the task's precision class
  // on the same inputs, and which bound the output met ("tolerance" or "platform").
  std::optional<double> platform_ratio;
  std::string passed_by;
  // A failed comparison of arrays of one shape: its k_worst_elements worst elements, largest error
  // first, and a hint at the cause the data shows ("" when none); the hint alone for a shape
  // mismatch (a transposed shape). Empty when passed.
  std::vector<worst_element> worst;
  std::string hint;
};

inline constexpr double k_rel_error_floor = 1e-6;

// Compares `out` with `ref` (shape and dtype must match exactly; integers compare exactly).
[[nodiscard]] comparison compare(const npy_array& out, const npy_array& ref, const tolerance& tol);

// Same dtype, shape and bytes.
[[nodiscard]] bool bitwise_equal(const npy_array& a, const npy_array& b);

[[nodiscard]] std::string shape_string(const npy_array& array);

}  // namespace pallasbench
