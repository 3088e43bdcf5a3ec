// profile_pair: one pass over an output and its reference for the moments of both and, along
// every axis, how many slices vary (the last axis's rows, the leading axes' slices kept in cache,
// the rest in strip passes of their own).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>
#include <vector>

#include "block_moments.hpp"
#include "moments.hpp"
#include "pallasbench/check/filters/profiles.hpp"
#include "pallasbench/check/npy.hpp"
#include "vector_isa.hpp"

namespace pallasbench {
namespace detail {
namespace {

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

// The passes over float arrays, compiled for the baseline and for AVX2.
void profile_f32_base(const float* out, const float* ref, std::size_t n, const std::vector<std::int64_t>& shape,
                      pair_profile& p) {
  profile_typed<base_isa>(out, ref, n, shape, p);
}

#if defined(__x86_64__) || defined(__i386__)
[[gnu::target("avx2")]] void profile_f32_avx2(const float* out, const float* ref, std::size_t n,
                                              const std::vector<std::int64_t>& shape, pair_profile& p) {
  profile_typed<avx2_isa>(out, ref, n, shape, p);
}
#endif

void profile_f32(const float* out, const float* ref, std::size_t n, const std::vector<std::int64_t>& shape,
                 pair_profile& p) {
#if defined(__x86_64__) || defined(__i386__)
  if (has_avx2()) return profile_f32_avx2(out, ref, n, shape, p);
#endif
  profile_f32_base(out, ref, n, shape, p);
}

}  // namespace
}  // namespace detail

pair_profile profile_pair(const npy_array& output, const npy_array& reference) {
  pair_profile p;
  if (output.type() != reference.type() || output.shape() != reference.shape()) {
    p.output = detail::array_moments(output), p.reference = detail::array_moments(reference);
    return p;
  }
  visit_elements(output, [&]<class T>(std::span<const T> out) {
    if constexpr (std::is_same_v<T, half>) {
      // Half outputs are rare: promote to float once.
      std::vector<float> o(out.begin(), out.end()), r(reference.size());
      const auto ref = reference.as<half>();
      std::transform(ref.begin(), ref.end(), r.begin(), [](half h) { return static_cast<float>(h); });
      detail::profile_f32(o.data(), r.data(), o.size(), output.shape(), p);
    } else if constexpr (std::is_same_v<T, float>) {
      detail::profile_f32(out.data(), reference.as<float>().data(), out.size(), output.shape(), p);
    } else {
      detail::profile_typed<detail::base_isa>(out.data(), reference.as<T>().data(), out.size(), output.shape(), p);
    }
  });
  return p;
}

}  // namespace pallasbench
