#include "pallasbench/check/filters.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <regex>
#include <set>
#include <stdexcept>
#include <type_traits>

#include <fmt/format.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace pallasbench {
namespace {

using nlohmann::json;

// Why the thresholds are what they are:
// - min_range_ratio / min_std_ratio 0.5: a correct kernel reproduces the reference's spread
//   almost exactly (ratio ~1); a collapsed or near-constant output has ratio ~0. Half leaves room
//   for tolerance-sized differences on references with little spread.
// - min_varying_slices 0.9: along an axis, slices where the reference varies beyond rounding
//   must vary in the output; a degenerate output fails nearly all of them, an honest one none.
// - max_impact_deviation 0.25: inputs are perturbed by ~5% (or 10% of discrete positions); the
//   change TF32 rounding adds to the output's change stays under ~5% of the reference's change.
// - max_outside_work 0.05: layout around a kernel (pad, reshape, slice) does no arithmetic and
//   is free; an honest epilogue (split-K partial results combined in XLA, as JAX's own decode
//   attention does: 1.5-2.8% of the task) stays well under 5%, while every XLA-does-the-work
//   cheat of the corpus puts 50% or more outside. Dots, gathers, scatters, sorts and casts are
//   refused outside whatever their share (module_analysis.cpp), so 5% buys no matmul.
// - scalar_setup_elements 64: outside ops on at most this many elements are scalar setup.
constexpr std::size_t k_chunk = 1 << 16;

// Converts elements [start, start+count) of any dtype to double.
void read_chunk(const npy_array& a, std::size_t start, std::size_t count, double* out) {
  visit_elements(a, [&]<class T>(std::span<const T> values) {
    for (std::size_t i = 0; i < count; ++i) out[i] = static_cast<double>(values[start + i]);
  });
}

// Largest per-axis slice count checked in the single pass; axes with more slices are not checked.
constexpr std::size_t k_max_accumulator = std::size_t{1} << 24;

// Rounding of a float reference must not count as variation.
template <class T>
double rounding_noise(double a, double b) {
  if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, half>)
    return 4 * std::numeric_limits<float>::epsilon() * std::max(std::fabs(a), std::fabs(b));
  else
    return 0.0;
}

// The value filters read every element of arrays up to GiBs: they run at memory speed only if the
// per-element work stays in SIMD registers. GCC vector extensions make that explicit (whether the
// auto-vectoriser fires depends on -O level and aliasing proofs). The binary also runs on other
// x86-64 hosts, so nothing is compiled for this CPU: the AVX2 copy of each pass is picked at run
// time, SSE2 (part of x86-64; NEON elsewhere) is the baseline. PALLASBENCH_NO_AVX2=1 in the
// environment forces the baseline (its tests and timings on an AVX2 machine).
struct base_isa {
  using f32 = float __attribute__((vector_size(16)));
  using f64 = double __attribute__((vector_size(16)));
};
struct avx2_isa {
  using f32 = float __attribute__((vector_size(32)));
  using f64 = double __attribute__((vector_size(32)));
};

// The kernels pass vectors only between always-inlined functions of this file: no call crosses
// the ABI that -Wpsabi warns about.
#pragma GCC diagnostic ignored "-Wpsabi"

#if defined(__x86_64__) || defined(__i386__)
bool has_avx2() {
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
constexpr std::size_t k_block = 2048;

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

// Extremes of one slice's elements: finite ones only, as in the moments.
struct extremes {
  double lo = 0, hi = 0;
  std::size_t count = 0;
  void add(double a, double b, std::size_t n) {
    if (n == 0) return;
    lo = count ? std::min(lo, a) : a, hi = count ? std::max(hi, b) : b;
    count += n;
  }
};

// Extremes of n elements known to be finite.
template <class Isa, class T>
[[gnu::always_inline]] inline extremes finite_extremes(const T* x, std::size_t n) {
  T lo = x[0], hi = x[0];
  std::size_t i = 0;
  if constexpr (std::is_same_v<T, float>) {
    using V = typename Isa::f32;
    constexpr std::size_t w = sizeof(V) / sizeof(float);
    if (n >= w) {
      V vlo = load<V>(x), vhi = vlo;
      for (i = w; i + w <= n; i += w) {
        const V v = load<V>(x + i);
        vlo = v < vlo ? v : vlo, vhi = v > vhi ? v : vhi;
      }
      for (std::size_t l = 0; l < w; ++l) lo = std::min(lo, vlo[l]), hi = std::max(hi, vhi[l]);
    }
  }
  for (; i < n; ++i) lo = x[i] < lo ? x[i] : lo, hi = x[i] > hi ? x[i] : hi;
  return {static_cast<double>(lo), static_cast<double>(hi), n};
}

// Extremes of the finite ones among n elements.
template <class T>
extremes some_finite_extremes(const T* x, std::size_t n) {
  extremes e;
  for (std::size_t i = 0; i < n; ++i) {
    const double v = static_cast<double>(x[i]);
    if (std::isfinite(v)) e.add(v, v, 1);
  }
  return e;
}

// lo/hi[i] take x[i] when it is lower/higher. Written as selects, so a NaN already in lo/hi
// stays and a NaN in x is passed over (the extremes of the leading axes have always done so).
template <class Isa, class T>
[[gnu::always_inline]] inline void extend_extremes(const T* x, T* lo, T* hi, std::size_t n) {
  std::size_t i = 0;
  if constexpr (std::is_same_v<T, float>) {
    using V = typename Isa::f32;
    constexpr std::size_t w = sizeof(V) / sizeof(float);
    for (; i + w <= n; i += w) {
      const V v = load<V>(x + i), l = load<V>(lo + i), h = load<V>(hi + i);
      store(lo + i, v < l ? v : l), store(hi + i, v > h ? v : h);
    }
  }
  for (; i < n; ++i) lo[i] = x[i] < lo[i] ? x[i] : lo[i], hi[i] = x[i] > hi[i] ? x[i] : hi[i];
}

// extend_extremes by G runs x[0], ..., x[G-1] in turn, reading and writing lo/hi once; with
// First, x[0] are the first elements (lo/hi are not read).
template <class Isa, std::size_t G, bool First, class T>
[[gnu::always_inline]] inline void extend_extremes(const T* const* x, T* lo, T* hi, std::size_t n) {
  std::size_t i = 0;
  if constexpr (std::is_same_v<T, float>) {
    using V = typename Isa::f32;
    constexpr std::size_t w = sizeof(V) / sizeof(float);
    for (; i + w <= n; i += w) {
      V l = First ? load<V>(x[0] + i) : load<V>(lo + i), h = First ? l : load<V>(hi + i);
      for (std::size_t g = First ? 1 : 0; g < G; ++g) {
        const V v = load<V>(x[g] + i);
        l = v < l ? v : l, h = v > h ? v : h;
      }
      store(lo + i, l), store(hi + i, h);
    }
  }
  for (; i < n; ++i) {
    T l = First ? x[0][i] : lo[i], h = First ? l : hi[i];
    for (std::size_t g = First ? 1 : 0; g < G; ++g) l = x[g][i] < l ? x[g][i] : l, h = x[g][i] > h ? x[g][i] : h;
    lo[i] = l, hi[i] = h;
  }
}

// A slice varies in the reference beyond rounding; does it vary in the output?
template <class T>
void count_slice(double out_lo, double out_hi, double ref_lo, double ref_hi, axis_variation& axis) {
  if (!(ref_hi - ref_lo > rounding_noise<T>(ref_lo, ref_hi))) return;
  ++axis.reference_varies;
  if (out_hi - out_lo > 0) ++axis.both_vary;
}

// Running extremes of some slices of the output and the reference.
template <class T>
struct slice_extremes {
  std::vector<T> out_lo, out_hi, ref_lo, ref_hi;
  explicit slice_extremes(std::size_t n) : out_lo(n), out_hi(n), ref_lo(n), ref_hi(n) {}

  // Slices [slot, slot + m) take their first elements.
  void first(const T* out, const T* ref, std::size_t slot, std::size_t m) {
    std::copy_n(out, m, out_lo.data() + slot), std::copy_n(out, m, out_hi.data() + slot);
    std::copy_n(ref, m, ref_lo.data() + slot), std::copy_n(ref, m, ref_hi.data() + slot);
  }
  // Slices [slot, slot + m) take their next elements.
  template <class Isa>
  [[gnu::always_inline]] inline void next(const T* out, const T* ref, std::size_t slot, std::size_t m) {
    extend_extremes<Isa>(out, out_lo.data() + slot, out_hi.data() + slot, m);
    extend_extremes<Isa>(ref, ref_lo.data() + slot, ref_hi.data() + slot, m);
  }
  // Slices [slot, slot + m) take their next g <= 4 elements each, from g runs at out/ref + j *
  // stride (j < g); with first, the first run holds their first elements.
  template <class Isa>
  [[gnu::always_inline]] inline void runs(const T* out, const T* ref, std::size_t stride, std::size_t slot,
                                          std::size_t m, std::size_t g, bool first) {
    switch (2 * g + first) {
      case 2:
        return runs<Isa, 1, false>(out, ref, stride, slot, m);
      case 3:
        return runs<Isa, 1, true>(out, ref, stride, slot, m);
      case 4:
        return runs<Isa, 2, false>(out, ref, stride, slot, m);
      case 5:
        return runs<Isa, 2, true>(out, ref, stride, slot, m);
      case 6:
        return runs<Isa, 3, false>(out, ref, stride, slot, m);
      case 7:
        return runs<Isa, 3, true>(out, ref, stride, slot, m);
      case 8:
        return runs<Isa, 4, false>(out, ref, stride, slot, m);
      default:
        return runs<Isa, 4, true>(out, ref, stride, slot, m);
    }
  }
  template <class Isa, std::size_t G, bool First>
  [[gnu::always_inline]] inline void runs(const T* out, const T* ref, std::size_t stride, std::size_t slot,
                                          std::size_t m) {
    const T *outs[G], *refs[G];
    for (std::size_t g = 0; g < G; ++g) outs[g] = out + g * stride, refs[g] = ref + g * stride;
    extend_extremes<Isa, G, First>(outs, out_lo.data() + slot, out_hi.data() + slot, m);
    extend_extremes<Isa, G, First>(refs, ref_lo.data() + slot, ref_hi.data() + slot, m);
  }
  // Slices [0, m) are complete.
  void count(std::size_t m, axis_variation& result) const {
    for (std::size_t i = 0; i < m; ++i)
      count_slice<T>(double(out_lo[i]), double(out_hi[i]), double(ref_lo[i]), double(ref_hi[i]), result);
  }
};

// The slices along one leading axis a, each the elements that differ only in coordinate a. All
// slices of one outer block (one value of the coordinates before a) lie in one contiguous run of
// extent * inner elements, so only inner slices' extremes are kept at once, reused per block.
template <class T>
struct leading_axis {
  std::size_t axis = 0, extent = 0, inner = 0;
  slice_extremes<T> slices{inner};

  // Elements [start, start + n) of the flat arrays.
  template <class Isa>
  [[gnu::always_inline]] inline void add(const T* out, const T* ref, std::size_t start, std::size_t n,
                                         axis_variation& result) {
    for (std::size_t done = 0; done < n;) {
      const std::size_t pos = start + done, slot = pos % inner, m = std::min(n - done, inner - slot);
      if ((pos / inner) % extent == 0)
        slices.first(out + done, ref + done, slot, m);
      else
        slices.template next<Isa>(out + done, ref + done, slot, m);
      done += m;
      if ((pos + m) % (inner * extent) == 0) slices.count(inner, result);  // the outer block is complete
    }
  }
};

// An axis's slices are kept in the main pass while their extremes (4 per slice) fit 512 KiB,
// which stays in L2 (1 MiB here, 1-2 MiB on current x86 server cores) beside the data streaming
// through. More would go to memory and back at every element read: 4x the pass's own traffic.
constexpr std::size_t k_cached_bytes = std::size_t{1} << 19;

// Runs of elements extend slice extremes 4 at a time (the extremes are read and written once per
// 4 elements of each slice), over at most k_run slices at once: 4 runs of 2 arrays and their
// slices' extremes, 768 KiB of floats, stay in L2.
constexpr std::size_t k_run = 16384;
constexpr std::size_t k_runs = 4;

// Each axis's slices with too many per outer block for the main pass get a pass of their own, in
// strips of k_run slices, each of their elements read as runs of k_run (contiguous in memory).
template <class Isa, class T>
[[gnu::always_inline]] inline void strip_pass(const T* out, const T* ref, std::size_t total, std::size_t extent,
                                              std::size_t inner, axis_variation& result) {
  slice_extremes<T> slices(k_run);
  for (std::size_t base = 0; base < total; base += extent * inner)
    for (std::size_t s = 0; s < inner; s += k_run) {
      const std::size_t m = std::min(k_run, inner - s);
      const T *o = out + base + s, *r = ref + base + s;
      for (std::size_t k = 0, g = 0; k < extent; k += g) {
        g = std::min(k_runs, extent - k);
        slices.template runs<Isa>(o + k * inner, r + k * inner, inner, 0, m, g, k == 0);
      }
      slices.count(m, result);
    }
}

// Rows longer than a block, when the only slices kept in the pass are those of the axis before
// the rows (a 2-D output, say): k_runs rows at a time, so the slices' extremes are read and
// written once per k_runs rows (per row, that traffic took half the pass's time). Each row is
// read in order, the pieces of k_run elements stay in cache for the slices' update.
template <class Isa, class T>
[[gnu::always_inline]] inline void profile_row_groups(const T* out, const T* ref, std::size_t total, std::size_t length,
                                                      leading_axis<T>& axis, pair_profile& p) {
  for (std::size_t row = 0, g = 0; row * length < total; row += g) {
    const std::size_t k = row % axis.extent;  // the rows' coordinate along the axis
    g = std::min(k_runs, axis.extent - k);    // no group spans two outer blocks
    extremes row_out[k_runs], row_ref[k_runs];
    for (std::size_t c = 0; c < length; c += k_run) {
      const std::size_t n = std::min(k_run, length - c);
      const T *o = out + row * length + c, *r = ref + row * length + c;
      for (std::size_t j = 0; j < g; ++j)
        for (std::size_t b = 0; b < n; b += k_block) {
          const std::size_t m = std::min(k_block, n - b);
          const value_moments mo = block_moments<Isa>(o + j * length + b, m, p.output);
          const value_moments mr = block_moments<Isa>(r + j * length + b, m, p.reference);
          p.output.merge(mo), p.reference.merge(mr);
          row_out[j].add(mo.min, mo.max, mo.count), row_ref[j].add(mr.min, mr.max, mr.count);
        }
      axis.slices.template runs<Isa>(o, r, length, c, n, g, k == 0);
    }
    for (std::size_t j = 0; j < g; ++j)
      count_slice<T>(row_out[j].lo, row_out[j].hi, row_ref[j].lo, row_ref[j].hi, p.axes.back());
    if ((row + g) % axis.extent == 0) axis.slices.count(length, p.axes[axis.axis]);
  }
}

// In order, block by block: a row longer than a block is several blocks (its extremes merge
// theirs); a block holds whole rows when they are shorter.
template <class Isa, class T>
[[gnu::always_inline]] inline void profile_blocks(const T* out, const T* ref, std::size_t total, std::size_t rank,
                                                  std::size_t length, std::vector<leading_axis<T>>& leading,
                                                  pair_profile& p) {
  const bool short_rows = length <= k_block;
  const std::size_t tile = short_rows ? k_block / length * length : k_block;
  extremes row_out, row_ref;  // of the current row, over its blocks so far
  for (std::size_t start = 0; start < total;) {
    const std::size_t n = short_rows ? std::min(tile, total - start) : std::min(tile, length - start % length);
    const T *o = out + start, *r = ref + start;
    const value_moments mo = block_moments<Isa>(o, n, p.output), mr = block_moments<Isa>(r, n, p.reference);
    p.output.merge(mo), p.reference.merge(mr);
    if (rank && short_rows) {
      const bool finite = mo.nonfinite == 0 && mr.nonfinite == 0;
      for (std::size_t row = 0; row < n; row += length) {
        if (n == length)  // one row: the block's extremes are the row's
          row_out = {mo.min, mo.max, mo.count}, row_ref = {mr.min, mr.max, mr.count};
        else if (finite)
          row_out = finite_extremes<Isa>(o + row, length), row_ref = finite_extremes<Isa>(r + row, length);
        else
          row_out = some_finite_extremes(o + row, length), row_ref = some_finite_extremes(r + row, length);
        count_slice<T>(row_out.lo, row_out.hi, row_ref.lo, row_ref.hi, p.axes.back());
      }
    } else if (rank) {
      row_out.add(mo.min, mo.max, mo.count), row_ref.add(mr.min, mr.max, mr.count);
      if ((start + n) % length == 0) {
        count_slice<T>(row_out.lo, row_out.hi, row_ref.lo, row_ref.hi, p.axes.back());
        row_out = row_ref = extremes{};
      }
    }
    for (auto& axis : leading) axis.template add<Isa>(o, r, start, n, p.axes[axis.axis]);
    start += n;
  }
}

// Moments of both arrays; along the last axis, the rows' extremes; along each earlier axis, the
// extremes of its slices: one pass, plus one per axis whose slices do not fit in cache.
template <class Isa, class T>
[[gnu::always_inline]] inline void profile_typed(const T* out, const T* ref, std::size_t total,
                                                 const std::vector<std::int64_t>& shape, pair_profile& p) {
  const std::size_t rank = shape.size();
  if (total == 0) return;
  const std::size_t length = rank ? static_cast<std::size_t>(shape.back()) : total;
  p.axes.assign(rank, axis_variation{});
  std::vector<leading_axis<T>> leading;
  struct strip_axis {
    std::size_t axis, extent, inner;
  };
  std::vector<strip_axis> strips;
  for (std::size_t a = rank ? rank - 1 : 0, inner = length; a-- > 0;) {
    const std::size_t extent = static_cast<std::size_t>(shape[a]);
    if (total / extent > k_max_accumulator)
      p.axes[a].checked = false;
    else if (4 * sizeof(T) * inner > k_cached_bytes)
      strips.push_back({a, extent, inner});
    else
      leading.push_back({a, extent, inner});
    inner *= extent;
  }
  if (length > k_block && leading.size() == 1 && leading.front().axis + 2 == rank)
    profile_row_groups<Isa>(out, ref, total, length, leading.front(), p);
  else
    profile_blocks<Isa>(out, ref, total, rank, length, leading, p);
  for (const auto& a : strips) strip_pass<Isa>(out, ref, total, a.extent, a.inner, p.axes[a.axis]);
}

// The passes over float arrays, each compiled for the baseline and for AVX2.
void profile_f32_base(const float* out, const float* ref, std::size_t n, const std::vector<std::int64_t>& shape,
                      pair_profile& p) {
  profile_typed<base_isa>(out, ref, n, shape, p);
}

void moments_f32_base(value_moments& m, const float* x, std::size_t n) { add_moments<base_isa>(m, x, n); }

#if defined(__x86_64__) || defined(__i386__)
[[gnu::target("avx2")]] void profile_f32_avx2(const float* out, const float* ref, std::size_t n,
                                              const std::vector<std::int64_t>& shape, pair_profile& p) {
  profile_typed<avx2_isa>(out, ref, n, shape, p);
}

[[gnu::target("avx2")]] void moments_f32_avx2(value_moments& m, const float* x, std::size_t n) {
  add_moments<avx2_isa>(m, x, n);
}
#endif

void profile_f32(const float* out, const float* ref, std::size_t n, const std::vector<std::int64_t>& shape,
                 pair_profile& p) {
#if defined(__x86_64__) || defined(__i386__)
  if (has_avx2()) return profile_f32_avx2(out, ref, n, shape, p);
#endif
  profile_f32_base(out, ref, n, shape, p);
}

void moments_f32(value_moments& m, const float* x, std::size_t n) {
#if defined(__x86_64__) || defined(__i386__)
  if (has_avx2()) return moments_f32_avx2(m, x, n);
#endif
  moments_f32_base(m, x, n);
}

// Moments of any array, alone (the output and reference differ in dtype or shape).
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

filter_result missing(const std::string& what) {
  filter_result r;
  r.reason = "cannot run: " + what;
  return r;
}

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

// Mean over elements of the std across k float arrays of size elements; with moments (k
// entries), arrays 1 to k-1 add theirs.
double float_std_across(const float* const* arrays, std::size_t k, std::size_t size, value_moments* moments = nullptr) {
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

bool same_shape(const output_pair& p) { return p.output->shape() == p.reference->shape(); }

}  // namespace

json filter_result::to_json() const {
  return {{"passed", passed},
          {"value", std::isfinite(value) ? json(value) : json(nullptr)},
          {"threshold", threshold},
          {"reason", reason}};
}

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

value_moments moments_of(std::span<const float> values) {
  value_moments m;
  moments_f32(m, values.data(), values.size());
  return m;
}

double mean_std_across(std::span<const float* const> seeds, std::size_t size) {
  return float_std_across(seeds.data(), seeds.size(), size);
}

pair_profile profile_pair(const npy_array& output, const npy_array& reference) {
  pair_profile p;
  if (output.type() != reference.type() || output.shape() != reference.shape()) {
    p.output = array_moments(output), p.reference = array_moments(reference);
    return p;
  }
  visit_elements(output, [&]<class T>(std::span<const T> out) {
    if constexpr (std::is_same_v<T, half>) {
      // Half outputs are rare: promote to float once.
      std::vector<float> o(out.begin(), out.end()), r(reference.size());
      const auto ref = reference.as<half>();
      std::transform(ref.begin(), ref.end(), r.begin(), [](half h) { return static_cast<float>(h); });
      profile_f32(o.data(), r.data(), o.size(), output.shape(), p);
    } else if constexpr (std::is_same_v<T, float>) {
      profile_f32(out.data(), reference.as<float>().data(), out.size(), output.shape(), p);
    } else {
      profile_typed<base_isa>(out.data(), reference.as<T>().data(), out.size(), output.shape(), p);
    }
  });
  return p;
}

const pair_profile& filter_inputs::profile(const output_pair& pair) const {
  const auto key = std::make_pair(pair.output, pair.reference);
  auto it = m_profiles.find(key);
  if (it == m_profiles.end()) it = m_profiles.emplace(key, profile_pair(*pair.output, *pair.reference)).first;
  return it->second;
}

const seed_summary& filter_inputs::summary() const {
  const auto same_seeds = [&] {
    return std::equal(
        seeds.begin(), seeds.end(), m_summary_of.begin(), m_summary_of.end(),
        [](const output_pair& a, const output_pair& b) { return a.output == b.output && a.reference == b.reference; });
  };
  if (m_summary && same_seeds()) return *m_summary;
  seed_summary sum;
  const std::size_t k = seeds.size();
  sum.across = k >= 2 && std::all_of(seeds.begin(), seeds.end(), same_shape);
  const auto size = k ? seeds.front().output->size() : 0;
  const bool float_seeds =
      sum.across && std::all_of(seeds.begin(), seeds.end(), [&](const output_pair& p) {
        return p.output->type() == dtype::float32 && p.reference->type() == dtype::float32 && p.output->size() == size;
      });
  if (float_seeds) {
    // Seed 0's profile (axes_variation reads it too); the other seeds' moments in the passes across seeds.
    const auto& first = profile(seeds.front());
    sum.outputs.assign(k, value_moments{}), sum.references.assign(k, value_moments{});
    sum.outputs[0] = first.output, sum.references[0] = first.reference;
    std::vector<const float*> outs, refs;
    for (const auto& p : seeds)
      outs.push_back(p.output->as<float>().data()), refs.push_back(p.reference->as<float>().data());
    sum.output_std_across = float_std_across(outs.data(), k, size, sum.outputs.data());
    sum.reference_std_across = float_std_across(refs.data(), k, size, sum.references.data());
  } else {
    for (const auto& p : seeds) {
      const auto& profiled = profile(p);
      sum.outputs.push_back(profiled.output), sum.references.push_back(profiled.reference);
    }
    if (sum.across) {
      std::vector<const npy_array*> outs, refs;
      for (const auto& p : seeds) outs.push_back(p.output), refs.push_back(p.reference);
      sum.reference_std_across = array_std_across(refs);
      sum.output_std_across = array_std_across(outs);
    }
  }
  m_summary_of = seeds;
  return *(m_summary = std::move(sum));
}

filter_result output_range_filter::evaluate(const filter_inputs& in) const {
  if (in.seeds.empty()) return missing("no outputs");
  filter_result r{true, std::numeric_limits<double>::infinity(), thresholds::min_range_ratio, ""};
  const auto& sum = in.summary();
  for (std::size_t s = 0; s < in.seeds.size(); ++s) {
    const auto &out = sum.outputs[s], &ref = sum.references[s];
    if (out.nonfinite > ref.nonfinite) {
      r.passed = false;
      r.value = 0;
      r.reason = fmt::format("seed {}: {} non-finite output elements", s, out.nonfinite);
      return r;
    }
    if (ref.range() <= 0) continue;
    r.value = std::min(r.value, out.range() / ref.range());
  }
  if (!std::isfinite(r.value)) {
    r.value = 1;
    r.reason = "the reference is constant: no spread to demand";
    return r;
  }
  r.passed = r.value >= r.threshold;
  r.reason = r.passed ? "output spread matches the reference's"
                      : fmt::format("output range is {:.3g} of the reference's", r.value);
  return r;
}

filter_result output_std_filter::evaluate(const filter_inputs& in) const {
  if (in.seeds.empty()) return missing("no outputs");
  filter_result r{true, std::numeric_limits<double>::infinity(), thresholds::min_std_ratio, ""};
  std::string worst = "across elements";
  const auto& sum = in.summary();
  for (std::size_t s = 0; s < in.seeds.size(); ++s)
    if (sum.references[s].stdev() > 0) r.value = std::min(r.value, sum.outputs[s].stdev() / sum.references[s].stdev());
  if (sum.across && sum.reference_std_across > 0) {
    const double ratio = sum.output_std_across / sum.reference_std_across;
    if (ratio < r.value) worst = "across seeds";
    r.value = std::min(r.value, ratio);
  }
  if (!std::isfinite(r.value)) {
    r.value = 1;
    r.reason = "the reference does not vary: no spread to demand";
    return r;
  }
  r.passed = r.value >= r.threshold;
  r.reason = r.passed ? "output std matches the reference's"
                      : fmt::format("output std {} is {:.3g} of the reference's", worst, r.value);
  return r;
}

filter_result axes_variation_filter::evaluate(const filter_inputs& in) const {
  if (in.seeds.empty()) return missing("no outputs");
  if (!same_shape(in.seeds.front())) return missing("output shape differs from the reference's");
  filter_result r{true, 1.0, thresholds::min_varying_slices, ""};
  const auto& axes = in.profile(in.seeds.front()).axes;
  std::size_t checked = 0, skipped = 0;
  for (std::size_t axis = 0; axis < axes.size(); ++axis) {
    if (!axes[axis].checked) {
      ++skipped;
      continue;
    }
    if (axes[axis].reference_varies == 0) continue;  // the reference is constant along this axis
    ++checked;
    const double fraction =
        static_cast<double>(axes[axis].both_vary) / static_cast<double>(axes[axis].reference_varies);
    if (fraction < r.value) {
      r.value = fraction;
      r.reason = fmt::format("axis {}: the output varies in {:.1f}% of the slices where the reference varies", axis,
                             100 * fraction);
    }
  }
  r.passed = r.value >= r.threshold;
  if (r.passed)
    r.reason = checked ? fmt::format("output varies where the reference varies along all {} axes", checked)
                       : "the reference varies along no axis";
  if (skipped) r.reason += fmt::format(" ({} axis/axes with over 2^24 slices not checked)", skipped);
  return r;
}

namespace {

struct impact_sums {
  double ref_change = 0, deviation = 0, ref_norm = 0;
  impact_sums& operator+=(const impact_sums& o) {
    ref_change += o.ref_change, deviation += o.deviation, ref_norm += o.ref_norm;
    return *this;
  }
};

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

}  // namespace

filter_result input_impact_filter::evaluate(const filter_inputs& in) const {
  if (in.input_count == 0) return missing("the task has no inputs listed");
  if (in.perturbations.size() < in.input_count)
    return missing(fmt::format("{} of {} inputs perturbed", in.perturbations.size(), in.input_count));
  filter_result r{true, 0.0, thresholds::max_impact_deviation, ""};
  std::vector<std::string> notes;
  for (const auto& p : in.perturbations) {
    if (p.base.output->size() != p.base.reference->size() || p.perturbed.output->size() != p.base.reference->size())
      return missing(fmt::format("input {}: outputs of different sizes", p.input));
    const auto sums = impact_of(p);
    if (std::sqrt(sums.ref_change) <= 1e-7 * std::sqrt(sums.ref_norm)) {
      notes.push_back(fmt::format("{}: perturbation leaves the reference unchanged", p.input));
      continue;
    }
    const double value = std::isfinite(sums.deviation) ? std::sqrt(sums.deviation / sums.ref_change)
                                                       : std::numeric_limits<double>::infinity();
    if (value > r.value || !std::isfinite(value)) {
      r.value = value;
      r.reason =
          fmt::format("input {}: the output's change deviates from the reference's by {:.3g} of it", p.input, value);
    }
  }
  r.passed = r.value <= r.threshold;
  if (r.passed) {
    r.reason = "every input changes the output as it changes the reference";
    for (const auto& note : notes) r.reason += "; " + note;
  }
  return r;
}

namespace {

const std::regex& harness_import_pattern() {
  static const std::regex pattern(
      R"((^|\n)\s*(from|import)\s+(tasks(\.|\s)|pallasbench\.(registry|worker|interpret|tracer|executor|reference)|pallasbench\s+import\s+(registry|worker|interpret|tracer|executor|reference)|)"
      R"(pallasbench\.task(\.registry\b|[ \t]+import[ \t(]+([\w \t,]*[ \t,])?registry\b)))"
      R"(|spec_from_file_location\([^)]*tasks/level|block_until_ready\s*=)");
  return pattern;
}

}  // namespace

// The verdict rests on the analysis of the module the executor deserialized (module_analysis:
// StableHLO and the kernels' IR); the source scan and the tracer's list of task files it saw
// imported only ever add reasons to refuse.
filter_result source_analysis_filter::evaluate(const filter_inputs& in) const {
  if (in.analysis == nullptr) return missing("no analysis of the kernel's module");
  const auto& a = *in.analysis;
  // The analysis was given thresholds::max_outside_work and scalar_setup_elements
  // (evaluator.cpp): a share over the threshold is one of its problems.
  filter_result r{true, a.outside_share, thresholds::max_outside_work, ""};
  std::vector<std::string> problems = a.problems;
  if (std::regex_search(in.source, harness_import_pattern()))
    problems.push_back("the source imports the harness or the task's reference module");
  if (!in.task_modules_loaded.empty())
    problems.push_back(fmt::format("the candidate loaded task file {}", in.task_modules_loaded.front()));
  r.passed = problems.empty();
  if (r.passed) {
    r.reason = fmt::format("{} Pallas kernel call(s); {:.2f}% of the work outside them", a.pallas_calls,
                           100 * a.outside_share);
  } else {
    r.reason = problems.front();
    for (std::size_t i = 1; i < problems.size(); ++i) r.reason += "; " + problems[i];
  }
  return r;
}

std::vector<std::unique_ptr<robustness_filter>> default_filters() {
  std::vector<std::unique_ptr<robustness_filter>> filters;
  filters.push_back(std::make_unique<output_range_filter>());
  filters.push_back(std::make_unique<output_std_filter>());
  filters.push_back(std::make_unique<axes_variation_filter>());
  filters.push_back(std::make_unique<input_impact_filter>());
  filters.push_back(std::make_unique<source_analysis_filter>());
  return filters;
}

json run_filters(const std::vector<std::unique_ptr<robustness_filter>>& filters, const filter_inputs& in,
                 bool& all_passed) {
  json out = json::object();
  all_passed = true;
  for (const auto& filter : filters) {
    filter_result result;
    try {
      result = filter->evaluate(in);
    } catch (const std::exception& e) {
      result = missing(e.what());
    }
    all_passed = all_passed && result.passed;
    out[filter->name()] = result.to_json();
  }
  return out;
}

}  // namespace pallasbench
