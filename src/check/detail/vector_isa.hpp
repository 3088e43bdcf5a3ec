// What every pass over output arrays shares: the vector types of each instruction set and the
// run-time choice between them, unaligned loads and stores, the block and chunk sizes.
//
// The value filters read every element of arrays up to GiBs: they run at memory speed only if the
// per-element work stays in SIMD registers. GCC vector extensions make that explicit (whether the
// auto-vectoriser fires depends on -O level and aliasing proofs). The binary also runs on other
// x86-64 hosts, so nothing is compiled for this CPU: the AVX2 copy of each pass is picked at run
// time, SSE2 (part of x86-64; NEON elsewhere) is the baseline. PALLASBENCH_NO_AVX2=1 in the
// environment forces the baseline (its tests and timings on an AVX2 machine).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <span>

#include "pallasbench/check/npy.hpp"

// The passes hand vectors only between always-inlined functions of one translation unit: no call
// crosses the ABI that -Wpsabi warns about. (Internal header: only the passes' sources include it.)
#pragma GCC diagnostic ignored "-Wpsabi"

namespace pallasbench::detail {

struct base_isa {
  using f32 = float __attribute__((vector_size(16)));
  using f64 = double __attribute__((vector_size(16)));
};
struct avx2_isa {
  using f32 = float __attribute__((vector_size(32)));
  using f64 = double __attribute__((vector_size(32)));
};

#if defined(__x86_64__) || defined(__i386__)
inline bool has_avx2() {
  static const bool cpu = __builtin_cpu_supports("avx2");
  return cpu && !std::getenv("PALLASBENCH_NO_AVX2");  // once per pass: no cost worth caching
}
#endif

template <class V, class T>
[[gnu::always_inline]] inline V load(const T* p) {
  V v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <class V, class T>
[[gnu::always_inline]] inline void store(T* p, const V& v) {
  std::memcpy(p, &v, sizeof v);
}

// Floats to a vector of doubles. Spelled element by element: GCC 12 splits
// __builtin_convertvector into halves here, but turns this into one vcvtps2pd.
template <class D>
[[gnu::always_inline]] inline D widen(const float* p) {
  if constexpr (sizeof(D) == 4 * sizeof(double))
    return D{p[0], p[1], p[2], p[3]};
  else
    return D{p[0], p[1]};
}

// Elements per block: the unit of float partial sums, of the finite check and of cache reuse.
inline constexpr std::size_t k_block = 2048;

// Elements per chunk where arrays of other dtypes go through a buffer of doubles (or floats).
inline constexpr std::size_t k_chunk = 1 << 16;

// Converts elements [start, start+count) of any dtype to double.
inline void read_chunk(const npy_array& a, std::size_t start, std::size_t count, double* out) {
  visit_elements(a, [&]<class T>(std::span<const T> values) {
    for (std::size_t i = 0; i < count; ++i) out[i] = static_cast<double>(values[start + i]);
  });
}

}  // namespace pallasbench::detail
