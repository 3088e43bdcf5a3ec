#include "std_across.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <span>
#include <type_traits>

#include "block_moments.hpp"
#include "vector_isa.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace pallasbench {
namespace detail {
namespace {

// Per element of a block: the sum of squares across the k arrays about the element's mean, or 0
// where it is not finite; in double, as for the other dtypes. K: k known at compile time (the
// loops over arrays unroll), or 0.
template <class Isa, std::size_t K>
[[gnu::always_inline]] inline void squares_about_mean(const float* const* arrays, std::size_t runtime_k, std::size_t n,
                                                      double* out) {
  const std::size_t k = K ? K : runtime_k;
  using D = typename Isa::f64;
  constexpr std::size_t w = sizeof(D) / sizeof(double);
  const double inv_k = 1.0 / static_cast<double>(k);  // no division per element: at most 1 ulp apart
  std::size_t i = 0;
  for (; i + w <= n; i += w) {
    D sum{}, sum_sq{};
    for (std::size_t s = 0; s < k; ++s) sum += widen<D>(arrays[s] + i);
    const D mean = sum * inv_k;
    for (std::size_t s = 0; s < k; ++s) {
      const D d = widen<D>(arrays[s] + i) - mean;
      sum_sq += d * d;
    }
    store(out + i, sum_sq - sum_sq == 0 ? sum_sq : D{});
  }
  for (; i < n; ++i) {
    double sum = 0, sum_sq = 0;
    for (std::size_t s = 0; s < k; ++s) sum += arrays[s][i];
    const double mean = sum * inv_k;
    for (std::size_t s = 0; s < k; ++s) sum_sq += (arrays[s][i] - mean) * (arrays[s][i] - mean);
    out[i] = std::isfinite(sum_sq) ? sum_sq : 0;
  }
}

// Sum of the square roots of n doubles >= 0. GCC's vector extensions have no square root and
// std::sqrt does not vectorise (errno): intrinsics on x86. A double root costs ~4x a float one
// (0.6 vs 0.17 ns an element here), so where every value is 0 or within [2^-120, 2^120] (no
// float underflow or overflow) the roots are taken in float: 2^-24 relative error each, on a
// sum of positive terms, summed in double.
#if defined(__x86_64__) || defined(__i386__)
double sum_of_roots_base(const double* x, std::size_t n) {
  __m128d acc = _mm_setzero_pd();
  std::size_t i = 0;
  for (; i + 2 <= n; i += 2) acc = _mm_add_pd(acc, _mm_sqrt_pd(_mm_loadu_pd(x + i)));
  double total = _mm_cvtsd_f64(acc) + _mm_cvtsd_f64(_mm_unpackhi_pd(acc, acc));
  for (; i < n; ++i) total += std::sqrt(x[i]);
  return total;
}

[[gnu::target("avx2")]] double horizontal_sum(__m256d v) {
  const __m128d half = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
  return _mm_cvtsd_f64(half) + _mm_cvtsd_f64(_mm_unpackhi_pd(half, half));
}

[[gnu::target("avx2")]] bool float_roots_exact_enough(const double* x, std::size_t n) {
  const __m256d zero = _mm256_setzero_pd(), tiny = _mm256_set1_pd(0x1p-120), huge = _mm256_set1_pd(0x1p120);
  __m256d bad = zero;
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m256d v = _mm256_loadu_pd(x + i);
    const __m256d small = _mm256_and_pd(_mm256_cmp_pd(v, tiny, _CMP_LT_OQ), _mm256_cmp_pd(v, zero, _CMP_NEQ_OQ));
    bad = _mm256_or_pd(bad, _mm256_or_pd(small, _mm256_cmp_pd(v, huge, _CMP_GT_OQ)));
  }
  if (_mm256_movemask_pd(bad)) return false;
  for (; i < n; ++i)
    if ((x[i] != 0 && x[i] < 0x1p-120) || x[i] > 0x1p120) return false;
  return true;
}

[[gnu::target("avx2")]] double sum_of_roots_avx2(const double* x, std::size_t n) {
  __m256d acc = _mm256_setzero_pd(), acc2 = acc;
  std::size_t i = 0;
  if (float_roots_exact_enough(x, n)) {
    for (; i + 8 <= n; i += 8) {
      const __m128 a = _mm256_cvtpd_ps(_mm256_loadu_pd(x + i)), b = _mm256_cvtpd_ps(_mm256_loadu_pd(x + i + 4));
      const __m256 roots = _mm256_sqrt_ps(_mm256_set_m128(b, a));
      acc = _mm256_add_pd(acc, _mm256_cvtps_pd(_mm256_castps256_ps128(roots)));
      acc2 = _mm256_add_pd(acc2, _mm256_cvtps_pd(_mm256_extractf128_ps(roots, 1)));
    }
  } else {
    for (; i + 4 <= n; i += 4) acc = _mm256_add_pd(acc, _mm256_sqrt_pd(_mm256_loadu_pd(x + i)));
  }
  double total = horizontal_sum(_mm256_add_pd(acc, acc2));
  for (; i < n; ++i) total += std::sqrt(x[i]);
  return total;
}
#else
double sum_of_roots_base(const double* x, std::size_t n) {
  double total = 0;
  for (std::size_t i = 0; i < n; ++i) total += std::sqrt(x[i]);
  return total;
}
#endif

// Per element of K = 2..4 float arrays (seeds), from element i (one vector V, or one float): the
// sum over pairs of squared differences, sum over s < t of (x_s - x_t)^2, which is K times the sum
// of squares about the mean. In float: each difference is one correctly rounded subtraction,
// whatever the values' magnitude (no mean to cancel against), and every term is positive.
template <class V, std::size_t K>
[[gnu::always_inline]] inline V pair_squares(const float* const* x, std::size_t i) {
  static_assert(K >= 2 && K <= 4);
  V v[K];
  for (std::size_t s = 0; s < K; ++s) v[s] = load<V>(x[s] + i);
  const V d01 = v[0] - v[1];
  V sq = d01 * d01;
  for (std::size_t t = 2; t < K; ++t)
    for (std::size_t s = 0; s < t; ++s) {
      const V d = v[s] - v[t];
      sq += d * d;
    }
  return sq;
}

// Sum over elements [0, n) of the roots of pair_squares: roots in float, two vectors' added in
// float, then summed in double. Per element that is a few float roundings (differences, squares,
// the sum of at most 6 squares, the root, the two roots' sum): at most 5.5 * 2^-24 relative for
// K = 4 (3.3e-7), 4 * 2^-24 for K = 3. A NaN or Inf element, or a difference or square beyond
// float's range, makes the sum non-finite.
#if defined(__x86_64__) || defined(__i386__)
template <std::size_t K>
double pair_roots_base(const float* const* x, std::size_t n) {
  using V = base_isa::f32;
  __m128d acc = _mm_setzero_pd(), acc2 = acc;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128 roots = _mm_add_ps(_mm_sqrt_ps(pair_squares<V, K>(x, i)), _mm_sqrt_ps(pair_squares<V, K>(x, i + 4)));
    acc = _mm_add_pd(acc, _mm_cvtps_pd(roots));
    acc2 = _mm_add_pd(acc2, _mm_cvtps_pd(_mm_movehl_ps(roots, roots)));
  }
  acc = _mm_add_pd(acc, acc2);
  double total = _mm_cvtsd_f64(acc) + _mm_cvtsd_f64(_mm_unpackhi_pd(acc, acc));
  for (; i < n; ++i) total += std::sqrt(pair_squares<float, K>(x, i));
  return total;
}

template <std::size_t K>
[[gnu::target("avx2")]] double pair_roots_avx2(const float* const* x, std::size_t n) {
  using V = avx2_isa::f32;
  __m256d acc = _mm256_setzero_pd(), acc2 = acc;
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256 roots =
        _mm256_add_ps(_mm256_sqrt_ps(pair_squares<V, K>(x, i)), _mm256_sqrt_ps(pair_squares<V, K>(x, i + 8)));
    acc = _mm256_add_pd(acc, _mm256_cvtps_pd(_mm256_castps256_ps128(roots)));
    acc2 = _mm256_add_pd(acc2, _mm256_cvtps_pd(_mm256_extractf128_ps(roots, 1)));
  }
  double total = horizontal_sum(_mm256_add_pd(acc, acc2));
  for (; i < n; ++i) total += std::sqrt(pair_squares<float, K>(x, i));
  return total;
}
#else
template <std::size_t K>
double pair_roots_base(const float* const* x, std::size_t n) {
  double total = 0;
  for (std::size_t i = 0; i < n; ++i) total += std::sqrt(pair_squares<float, K>(x, i));
  return total;
}
#endif

template <class Isa, std::size_t K>
[[gnu::always_inline]] inline double pair_roots(const float* const* x, std::size_t n) {
#if defined(__x86_64__) || defined(__i386__)
  if constexpr (std::is_same_v<Isa, avx2_isa>) return pair_roots_avx2<K>(x, n);
#endif
  return pair_roots_base<K>(x, n);
}

// Over elements, the root of the sum of squares about the mean across k float arrays (seeds).
// For k <= 4 a block's roots come from pair_roots when they are good to its float roundings:
// the sum is finite (no NaN/Inf element, no float overflow) and at least 2^-30, or 0 with every
// array equal. Squares that underflow (subnormal or 0) put an absolute error of at most 11 *
// 2^-150 on a pair sum, under 2^-73 on its root, 2^-62 over a block: under 2^-32 of a block sum
// of 2^-30. Other blocks, and k > 4, are done per element in double, as before.
// With moments, arrays 1 to k-1 also get theirs (blocks as in add_moments), while their blocks
// are in cache.
template <class Isa>
[[gnu::always_inline]] inline double sum_of_roots_across(const float* const* arrays, std::size_t k, std::size_t size,
                                                         value_moments* moments) {
  std::vector<const float*> at(k);
  std::vector<double> squares(k_block);
  double total = 0, total_pairs = 0;  // roots of sums about the mean; roots of pair sums (sqrt(k) times more)
  for (std::size_t start = 0; start < size; start += k_block) {
    const std::size_t n = std::min(k_block, size - start);
    for (std::size_t s = 0; s < k; ++s) at[s] = arrays[s] + start;
    if (moments)
      for (std::size_t s = 1; s < k; ++s) moments[s].merge(block_moments<Isa>(at[s], n, moments[s]));
    const double roots = k == 2   ? pair_roots<Isa, 2>(at.data(), n)
                         : k == 3 ? pair_roots<Isa, 3>(at.data(), n)
                         : k == 4 ? pair_roots<Isa, 4>(at.data(), n)
                                  : std::numeric_limits<double>::quiet_NaN();
    const auto all_equal = [&] {
      for (std::size_t s = 1; s < k; ++s)
        if (std::memcmp(at[0], at[s], n * sizeof(float)) != 0) return false;
      return true;
    };
    if (std::isfinite(roots) && (roots >= 0x1p-30 || (roots == 0 && all_equal()))) {
      total_pairs += roots;
      continue;
    }
    switch (k) {
      case 2:
        squares_about_mean<Isa, 2>(at.data(), k, n, squares.data());
        break;
      case 3:
        squares_about_mean<Isa, 3>(at.data(), k, n, squares.data());
        break;
      case 4:
        squares_about_mean<Isa, 4>(at.data(), k, n, squares.data());
        break;
      default:
        squares_about_mean<Isa, 0>(at.data(), k, n, squares.data());
    }
#if defined(__x86_64__) || defined(__i386__)
    if constexpr (std::is_same_v<Isa, avx2_isa>) {
      total += sum_of_roots_avx2(squares.data(), n);
      continue;
    }
#endif
    total += sum_of_roots_base(squares.data(), n);
  }
  return total + total_pairs / std::sqrt(static_cast<double>(k));
}

double sum_of_roots_across_base(const float* const* arrays, std::size_t k, std::size_t size, value_moments* moments) {
  return sum_of_roots_across<base_isa>(arrays, k, size, moments);
}

#if defined(__x86_64__) || defined(__i386__)
[[gnu::target("avx2")]] double sum_of_roots_across_avx2(const float* const* arrays, std::size_t k, std::size_t size,
                                                        value_moments* moments) {
  return sum_of_roots_across<avx2_isa>(arrays, k, size, moments);
}
#endif

}  // namespace

double float_std_across(const float* const* arrays, std::size_t k, std::size_t size, value_moments* moments) {
  if (k < 2 || size == 0) return 0;
#if defined(__x86_64__) || defined(__i386__)
  const double total = has_avx2() ? sum_of_roots_across_avx2(arrays, k, size, moments)
                                  : sum_of_roots_across_base(arrays, k, size, moments);
#else
  const double total = sum_of_roots_across_base(arrays, k, size, moments);
#endif
  return total / std::sqrt(static_cast<double>(k - 1)) / static_cast<double>(size);
}

// Mean over elements of the standard deviation across arrays (seeds) of the same shape.
double array_std_across(const std::vector<const npy_array*>& arrays) {
  const std::size_t k = arrays.size(), size = arrays.front()->size();
  if (std::all_of(arrays.begin(), arrays.end(),
                  [&](const npy_array* a) { return a->type() == dtype::float32 && a->size() == size; })) {
    std::vector<const float*> data;
    for (const auto* a : arrays) data.push_back(a->as<float>().data());
    return float_std_across(data.data(), k, size);
  }
  std::vector<std::vector<double>> buffers(k, std::vector<double>(k_chunk));
  double total = 0;
  for (std::size_t start = 0; start < size; start += k_chunk) {
    const std::size_t n = std::min(k_chunk, size - start);
    for (std::size_t s = 0; s < k; ++s) read_chunk(*arrays[s], start, n, buffers[s].data());
    for (std::size_t i = 0; i < n; ++i) {
      double sum = 0, sum_sq = 0;
      for (std::size_t s = 0; s < k; ++s) sum += buffers[s][i];
      const double mean = sum / static_cast<double>(k);
      for (std::size_t s = 0; s < k; ++s) sum_sq += (buffers[s][i] - mean) * (buffers[s][i] - mean);
      if (std::isfinite(sum_sq)) total += std::sqrt(sum_sq / static_cast<double>(k - 1));
    }
  }
  return total / static_cast<double>(size);
}

}  // namespace detail

double mean_std_across(std::span<const float* const> seeds, std::size_t size) {
  return detail::float_std_across(seeds.data(), seeds.size(), size);
}

}  // namespace pallasbench
