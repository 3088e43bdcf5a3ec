// The moments of one block of elements, the unit every pass merges (value_moments::merge).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <type_traits>

#include "pallasbench/check/filters/profiles.hpp"
#include "vector_isa.hpp"

namespace pallasbench::detail {

struct float_sums {
  double s = 0, q = 0;
  float lo = 0, hi = 0;
};

// Sums of x - shift and of its square, and the extremes, over one block. The partials are float
// (8 elements an instruction); a lane adds at most k_block / 8 terms, a relative error of at most
// ~256 float epsilons (3e-5) of the sum of |x - shift| or of (x - shift)^2, and shifting by the
// running mean makes those sums about the spread, not the magnitude (no cancellation between
// sum of squares and squared mean). The std is good to ~1e-5 relative against thresholds of 0.5;
// blocks are merged in double. A NaN or Inf element, or a finite one whose float square
// overflows, makes the sums non-finite: such blocks are redone exactly.
template <class Isa>
[[gnu::always_inline]] inline float_sums sum_block(const float* x, std::size_t n, float shift) {
  using V = typename Isa::f32;
  constexpr std::size_t w = sizeof(V) / sizeof(float);
  const V k = V{} + shift;
  V s0{}, s1{}, q0{}, q1{}, lo0 = V{} + x[0], lo1 = lo0, hi0 = lo0, hi1 = lo0;
  std::size_t i = 0;
  for (; i + 2 * w <= n; i += 2 * w) {  // two vectors in flight: the additions do not wait on each other
    const V a = load<V>(x + i), b = load<V>(x + i + w), da = a - k, db = b - k;
    s0 += da, s1 += db, q0 += da * da, q1 += db * db;
    lo0 = a < lo0 ? a : lo0, lo1 = b < lo1 ? b : lo1, hi0 = a > hi0 ? a : hi0, hi1 = b > hi1 ? b : hi1;
  }
  float_sums r{0, 0, x[0], x[0]};
  for (std::size_t l = 0; l < w; ++l) {
    r.s += double(s0[l]) + double(s1[l]), r.q += double(q0[l]) + double(q1[l]);
    r.lo = std::min({r.lo, lo0[l], lo1[l]}), r.hi = std::max({r.hi, hi0[l], hi1[l]});
  }
  for (; i < n; ++i) {
    const float d = x[i] - shift;
    r.s += d, r.q += double(d * d);
    r.lo = std::min(r.lo, x[i]), r.hi = std::max(r.hi, x[i]);
  }
  return r;
}

// Moments of a block's finite elements, two passes in double: blocks holding NaN/Inf (or values
// whose float squares overflow), blocks with no mean yet to shift by, and non-float dtypes.
template <class T>
value_moments exact_block(const T* x, std::size_t n) {
  value_moments m;
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double v = static_cast<double>(x[i]);
    if (!std::isfinite(v)) {
      ++m.nonfinite;
      continue;
    }
    if (m.count == 0) m.min = m.max = v;
    m.min = std::min(m.min, v), m.max = std::max(m.max, v);
    sum += v, ++m.count;
  }
  if (m.count == 0) return m;
  m.mean = sum / static_cast<double>(m.count);
  for (std::size_t i = 0; i < n; ++i) {
    const double v = static_cast<double>(x[i]);
    if (std::isfinite(v)) m.m2 += (v - m.mean) * (v - m.mean);
  }
  return m;
}

// Moments of one block's finite elements; so_far (the array's blocks before it) gives the shift.
template <class Isa, class T>
[[gnu::always_inline]] inline value_moments block_moments(const T* x, std::size_t n, const value_moments& so_far) {
  if constexpr (std::is_same_v<T, float>) {
    if (so_far.count) {
      const float shift = static_cast<float>(so_far.mean);
      const float_sums r = sum_block<Isa>(x, n, shift);
      if (std::isfinite(r.s) && std::isfinite(r.q)) {
        const double d_mean = r.s / static_cast<double>(n);
        return {r.lo, r.hi, shift + d_mean, std::max(0.0, r.q - r.s * d_mean), n, 0};
      }
    }
  }
  return exact_block(x, n);
}

template <class Isa, class T>
[[gnu::always_inline]] inline void add_moments(value_moments& m, const T* x, std::size_t n) {
  for (std::size_t start = 0; start < n; start += k_block)
    m.merge(block_moments<Isa>(x + start, std::min(k_block, n - start), m));
}

}  // namespace pallasbench::detail
