#include "impact.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <iterator>
#include <span>
#include <type_traits>
#include <vector>

#include "pallasbench/check/npy.hpp"
#include "vector_isa.hpp"

namespace pallasbench::detail {
namespace {

// Sums over elements of the reference's change, its deviation from the output's, and |ref|^2,
// leaving out elements whose reference change is not finite.
template <class T>
impact_sums exact_impact(const T* out, const T* ref, const T* out_p, const T* ref_p, std::size_t n) {
  impact_sums s;
  for (std::size_t i = 0; i < n; ++i) {
    const double d_ref = double(ref_p[i]) - double(ref[i]), d_out = double(out_p[i]) - double(out[i]);
    if (!std::isfinite(d_ref)) continue;
    s.ref_change += d_ref * d_ref, s.deviation += (d_out - d_ref) * (d_out - d_ref);
    s.ref_norm += double(ref[i]) * double(ref[i]);
  }
  return s;
}

// The same sums over all elements of a block, in double as for the other dtypes (each float
// converts exactly): 4 elements an instruction with AVX2.
template <class Isa>
[[gnu::always_inline]] inline impact_sums impact_block(const float* out, const float* ref, const float* out_p,
                                                       const float* ref_p, std::size_t n) {
  using D = typename Isa::f64;
  constexpr std::size_t w = sizeof(D) / sizeof(double);
  D change[2] = {}, deviation[2] = {}, norm[2] = {};  // two sets in flight: additions do not wait on each other
  std::size_t i = 0;
  for (; i + 2 * w <= n; i += 2 * w)
    for (std::size_t u = 0; u < 2; ++u) {
      const std::size_t j = i + u * w;
      const D r = widen<D>(ref + j), d_ref = widen<D>(ref_p + j) - r;
      const D e = widen<D>(out_p + j) - widen<D>(out + j) - d_ref;
      change[u] += d_ref * d_ref, deviation[u] += e * e, norm[u] += r * r;
    }
  impact_sums s;
  for (std::size_t l = 0; l < w; ++l) {
    s.ref_change += change[0][l] + change[1][l], s.deviation += deviation[0][l] + deviation[1][l];
    s.ref_norm += norm[0][l] + norm[1][l];
  }
  for (; i < n; ++i) {
    const double d_ref = double(ref_p[i]) - double(ref[i]), e = double(out_p[i]) - double(out[i]) - d_ref;
    s.ref_change += d_ref * d_ref, s.deviation += e * e, s.ref_norm += double(ref[i]) * double(ref[i]);
  }
  return s;
}

// Block by block: all elements while the reference's sums stay finite, else the exact sums.
template <class Isa, class T>
[[gnu::always_inline]] inline impact_sums impact_typed(const T* out, const T* ref, const T* out_p, const T* ref_p,
                                                       std::size_t n) {
  impact_sums s;
  for (std::size_t start = 0; start < n; start += k_block) {
    const std::size_t m = std::min(k_block, n - start);
    impact_sums part;
    if constexpr (std::is_same_v<T, float>) {
      part = impact_block<Isa>(out + start, ref + start, out_p + start, ref_p + start, m);
    } else {
      for (std::size_t i = start; i < start + m; ++i) {
        const double d_ref = double(ref_p[i]) - double(ref[i]), e = double(out_p[i]) - double(out[i]) - d_ref;
        part.ref_change += d_ref * d_ref, part.deviation += e * e, part.ref_norm += double(ref[i]) * double(ref[i]);
      }
    }
    if (!std::isfinite(part.ref_change + part.ref_norm))  // non-finite reference elements: leave them out
      part = exact_impact(out + start, ref + start, out_p + start, ref_p + start, m);
    s += part;
  }
  return s;
}

impact_sums impact_f32_base(const float* out, const float* ref, const float* out_p, const float* ref_p, std::size_t n) {
  return impact_typed<base_isa>(out, ref, out_p, ref_p, n);
}

#if defined(__x86_64__) || defined(__i386__)
[[gnu::target("avx2")]] impact_sums impact_f32_avx2(const float* out, const float* ref, const float* out_p,
                                                    const float* ref_p, std::size_t n) {
  return impact_typed<avx2_isa>(out, ref, out_p, ref_p, n);
}
#endif

impact_sums impact_f32(const float* out, const float* ref, const float* out_p, const float* ref_p, std::size_t n) {
#if defined(__x86_64__) || defined(__i386__)
  if (has_avx2()) return impact_f32_avx2(out, ref, out_p, ref_p, n);
#endif
  return impact_f32_base(out, ref, out_p, ref_p, n);
}

}  // namespace

impact_sums impact_of(const perturbation& p) {
  const npy_array* arrays[4] = {p.base.output, p.base.reference, p.perturbed.output, p.perturbed.reference};
  const auto type = arrays[0]->type();
  const bool uniform = std::all_of(std::begin(arrays), std::end(arrays), [&](const npy_array* a) {
    return a->type() == type && a->size() == arrays[0]->size();
  });
  if (uniform && type != dtype::float16) {
    return visit_elements(*arrays[0], [&]<class T>(std::span<const T>) {
      if constexpr (std::is_same_v<T, half>) {
        return impact_sums{};
      } else if constexpr (std::is_same_v<T, float>) {
        return impact_f32(arrays[0]->as<T>().data(), arrays[1]->as<T>().data(), arrays[2]->as<T>().data(),
                          arrays[3]->as<T>().data(), arrays[0]->size());
      } else {
        return impact_typed<base_isa, T>(arrays[0]->as<T>().data(), arrays[1]->as<T>().data(),
                                         arrays[2]->as<T>().data(), arrays[3]->as<T>().data(), arrays[0]->size());
      }
    });
  }
  // Mixed dtypes: through doubles.
  std::array<std::vector<double>, 4> buf;
  for (auto& b : buf) b.resize(k_chunk);
  impact_sums s;
  const std::size_t size = std::min({arrays[0]->size(), arrays[1]->size(), arrays[2]->size(), arrays[3]->size()});
  for (std::size_t start = 0; start < size; start += k_chunk) {
    const std::size_t n = std::min(k_chunk, size - start);
    for (int k = 0; k < 4; ++k) read_chunk(*arrays[k], start, n, buf[k].data());
    s += impact_typed<base_isa, double>(buf[0].data(), buf[1].data(), buf[2].data(), buf[3].data(), n);
  }
  return s;
}

}  // namespace pallasbench::detail
