#include "moments.hpp"

#include <algorithm>
#include <cmath>
#include <span>
#include <type_traits>
#include <vector>

#include "block_moments.hpp"
#include "vector_isa.hpp"

namespace pallasbench {

double value_moments::stdev() const {
  if (count < 2) return 0;
  return std::sqrt(m2 / static_cast<double>(count));
}

void value_moments::merge(const value_moments& part) {
  nonfinite += part.nonfinite;
  if (part.count == 0) return;
  if (count == 0) {
    const std::size_t bad = nonfinite;
    *this = part;
    nonfinite = bad;
    return;
  }
  const double n = static_cast<double>(count + part.count), delta = part.mean - mean;
  const double weight = static_cast<double>(part.count) / n;
  mean += delta * weight;
  m2 += part.m2 + delta * delta * static_cast<double>(count) * weight;
  min = std::min(min, part.min), max = std::max(max, part.max);
  count += part.count;
}

namespace detail {
namespace {

void moments_f32_base(value_moments& m, const float* x, std::size_t n) { add_moments<base_isa>(m, x, n); }

#if defined(__x86_64__) || defined(__i386__)
[[gnu::target("avx2")]] void moments_f32_avx2(value_moments& m, const float* x, std::size_t n) {
  add_moments<avx2_isa>(m, x, n);
}
#endif

}  // namespace

void moments_f32(value_moments& m, const float* x, std::size_t n) {
#if defined(__x86_64__) || defined(__i386__)
  if (has_avx2()) return moments_f32_avx2(m, x, n);
#endif
  moments_f32_base(m, x, n);
}

value_moments array_moments(const npy_array& array) {
  value_moments m;
  visit_elements(array, [&]<class T>(std::span<const T> values) {
    if constexpr (std::is_same_v<T, half>) {
      std::vector<float> buffer(k_chunk);
      for (std::size_t start = 0; start < values.size(); start += k_chunk) {
        const std::size_t n = std::min(k_chunk, values.size() - start);
        std::copy_n(values.begin() + static_cast<std::ptrdiff_t>(start), n, buffer.begin());
        moments_f32(m, buffer.data(), n);
      }
    } else if constexpr (std::is_same_v<T, float>) {
      moments_f32(m, values.data(), values.size());
    } else {
      add_moments<base_isa>(m, values.data(), values.size());
    }
  });
  return m;
}

}  // namespace detail

value_moments moments_of(std::span<const float> values) {
  value_moments m;
  detail::moments_f32(m, values.data(), values.size());
  return m;
}

}  // namespace pallasbench
