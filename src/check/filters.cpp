#include "pallasbench/filters.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <regex>
#include <set>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <type_traits>

#include <fmt/format.h>

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
// - max_outside_work 0.01: layout around a kernel (pad, reshape, slice) does no arithmetic;
//   1% of the task's FLOPs covers scalar setup, never half a task.
// - scalar_setup_elements 64: outside ops on at most this many elements are scalar setup.
constexpr std::size_t k_chunk = 1 << 16;

// Converts elements [start, start+count) of any dtype to double.
void read_chunk(const npy_array& a, std::size_t start, std::size_t count, double* out) {
  visit_elements(a, [&]<class T>(std::span<const T> values) {
    for (std::size_t i = 0; i < count; ++i) out[i] = static_cast<double>(values[start + i]);
  });
}


// Largest per-axis accumulator kept in the single pass (elements); wider axes get their own pass.
constexpr std::size_t k_max_accumulator = std::size_t{1} << 24;

// Rounding of a float reference must not count as variation.
template <class T>
double rounding_noise(double a, double b) {
  if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, half>)
    return 4 * std::numeric_limits<float>::epsilon() * std::max(std::fabs(a), std::fabs(b));
  else
    return 0.0;
}

template <class T>
struct slice_accumulator {
  std::vector<T> out_min, out_max, ref_min, ref_max;
  explicit slice_accumulator(std::size_t n) : out_min(n), out_max(n), ref_min(n), ref_max(n) {}
};

void add_finite(value_moments& m, double x) {
  if (!std::isfinite(x)) {
    ++m.nonfinite;
    return;
  }
  if (m.count == 0) m.min = m.max = x;
  m.min = std::min(m.min, x);
  m.max = std::max(m.max, x);
  m.sum += x;
  m.sum_sq += x * x;
  ++m.count;
}

// The row's moments in one branch-free loop; rows holding NaN/Inf are redone element by element.
template <class T>
void row_moments(const T* out, const T* ref, std::size_t n, value_moments& mo, value_moments& mr, double& out_range,
                 double& ref_lo, double& ref_hi) {
  double osum = 0, osq = 0, rsum = 0, rsq = 0;
  T omin = out[0], omax = out[0], rmin = ref[0], rmax = ref[0];
  // Sums in the element type over short runs (vectorisable), carried in double across runs:
  // plenty for a filter's statistics.
  // Eight independent lanes let the compiler vectorise without reassociating one sum.
  using acc_t = std::conditional_t<std::is_floating_point_v<T>, T, double>;
  constexpr std::size_t lanes = 8, run = 256;
  for (std::size_t j0 = 0; j0 < n; j0 += run) {
    const std::size_t j1 = std::min(n, j0 + run);
    acc_t os[lanes] = {}, oq[lanes] = {}, rs[lanes] = {}, rq[lanes] = {};
    T lo_o[lanes], hi_o[lanes], lo_r[lanes], hi_r[lanes];
    std::fill_n(lo_o, lanes, omin), std::fill_n(hi_o, lanes, omax);
    std::fill_n(lo_r, lanes, rmin), std::fill_n(hi_r, lanes, rmax);
    std::size_t j = j0;
    for (; j + lanes <= j1; j += lanes)
      for (std::size_t l = 0; l < lanes; ++l) {
        const T x = out[j + l], y = ref[j + l];
        os[l] += static_cast<acc_t>(x), oq[l] += static_cast<acc_t>(x) * static_cast<acc_t>(x);
        rs[l] += static_cast<acc_t>(y), rq[l] += static_cast<acc_t>(y) * static_cast<acc_t>(y);
        lo_o[l] = x < lo_o[l] ? x : lo_o[l], hi_o[l] = x > hi_o[l] ? x : hi_o[l];
        lo_r[l] = y < lo_r[l] ? y : lo_r[l], hi_r[l] = y > hi_r[l] ? y : hi_r[l];
      }
    for (; j < j1; ++j) {
      os[0] += static_cast<acc_t>(out[j]), oq[0] += static_cast<acc_t>(out[j]) * static_cast<acc_t>(out[j]);
      rs[0] += static_cast<acc_t>(ref[j]), rq[0] += static_cast<acc_t>(ref[j]) * static_cast<acc_t>(ref[j]);
      lo_o[0] = out[j] < lo_o[0] ? out[j] : lo_o[0], hi_o[0] = out[j] > hi_o[0] ? out[j] : hi_o[0];
      lo_r[0] = ref[j] < lo_r[0] ? ref[j] : lo_r[0], hi_r[0] = ref[j] > hi_r[0] ? ref[j] : hi_r[0];
    }
    for (std::size_t l = 0; l < lanes; ++l) {
      osum += double(os[l]), osq += double(oq[l]), rsum += double(rs[l]), rsq += double(rq[l]);
      omin = lo_o[l] < omin ? lo_o[l] : omin, omax = hi_o[l] > omax ? hi_o[l] : omax;
      rmin = lo_r[l] < rmin ? lo_r[l] : rmin, rmax = hi_r[l] > rmax ? hi_r[l] : rmax;
    }
  }
  if (std::isfinite(osum + osq + rsum + rsq)) {
    for (auto [m, sum, sq, lo, hi] : {std::tuple{&mo, osum, osq, double(omin), double(omax)},
                                      std::tuple{&mr, rsum, rsq, double(rmin), double(rmax)}}) {
      if (m->count == 0) m->min = lo, m->max = hi;
      m->min = std::min(m->min, lo), m->max = std::max(m->max, hi);
      m->sum += sum, m->sum_sq += sq, m->count += n;
    }
    out_range = double(omax) - double(omin);
    ref_lo = double(rmin), ref_hi = double(rmax);
    return;
  }
  value_moments ro, rr;
  for (std::size_t j = 0; j < n; ++j) add_finite(ro, double(out[j])), add_finite(rr, double(ref[j]));
  for (auto [m, part] : {std::pair{&mo, &ro}, std::pair{&mr, &rr}}) {
    if (part->count == 0) {
      m->nonfinite += part->nonfinite;
      continue;
    }
    if (m->count == 0) m->min = part->min, m->max = part->max;
    m->min = std::min(m->min, part->min), m->max = std::max(m->max, part->max);
    m->sum += part->sum, m->sum_sq += part->sum_sq, m->count += part->count, m->nonfinite += part->nonfinite;
  }
  out_range = ro.range();
  ref_lo = rr.count ? rr.min : 0, ref_hi = rr.count ? rr.max : 0;
}

template <class T>
void count_varying(const slice_accumulator<T>& acc, axis_variation& axis) {
  for (std::size_t i = 0; i < acc.ref_min.size(); ++i) {
    const double lo = double(acc.ref_min[i]), hi = double(acc.ref_max[i]);
    if (!(hi - lo > rounding_noise<T>(lo, hi))) continue;
    ++axis.reference_varies;
    if (double(acc.out_max[i]) - double(acc.out_min[i]) > 0) ++axis.both_vary;
  }
}

// One pass: moments of both arrays, and for every axis the slices that vary. The last axis's
// slices are the rows; an earlier axis a keeps a min/max per slice (total / shape[a] of them).
template <class T>
void profile_typed(std::span<const T> out, std::span<const T> ref, const std::vector<std::int64_t>& shape,
                   pair_profile& p) {
  const std::size_t rank = shape.size();
  const std::size_t total = out.size();
  if (total == 0) return;
  const std::size_t length = rank ? static_cast<std::size_t>(shape.back()) : 1;
  const std::size_t rows = length ? total / length : 0;
  p.axes.assign(rank, axis_variation{});
  // Accumulators of the leading axes, with the strides that map a row to its slices.
  std::vector<std::optional<slice_accumulator<T>>> acc(rank);
  std::vector<std::vector<std::size_t>> strides(rank, std::vector<std::size_t>(rank, 0));
  for (std::size_t a = 0; a + 1 < rank; ++a) {
    const std::size_t n = total / static_cast<std::size_t>(shape[a]);
    if (n > k_max_accumulator) continue;
    acc[a].emplace(n);
    std::size_t stride = length;
    for (std::size_t d = rank - 1; d-- > 0;) {
      if (d == a) continue;
      strides[a][d] = stride;
      stride *= static_cast<std::size_t>(shape[d]);
    }
  }
  std::vector<std::size_t> index(rank, 0);  // leading coordinates of the current row
  for (std::size_t r = 0; r < rows; ++r) {
    const T* o = out.data() + r * length;
    const T* f = ref.data() + r * length;
    double out_range = 0, ref_lo = 0, ref_hi = 0;
    row_moments(o, f, length, p.output, p.reference, out_range, ref_lo, ref_hi);
    if (rank && ref_hi - ref_lo > rounding_noise<T>(ref_lo, ref_hi)) {
      ++p.axes.back().reference_varies;
      if (out_range > 0) ++p.axes.back().both_vary;
    }
    for (std::size_t a = 0; a + 1 < rank; ++a) {
      if (!acc[a]) continue;
      std::size_t base = 0;
      for (std::size_t d = 0; d + 1 < rank; ++d) base += index[d] * strides[a][d];
      auto& s = *acc[a];
      T* omin = s.out_min.data() + base;
      T* omax = s.out_max.data() + base;
      T* rmin = s.ref_min.data() + base;
      T* rmax = s.ref_max.data() + base;
      if (index[a] == 0) {  // the slices' first elements
        std::copy(o, o + length, omin), std::copy(o, o + length, omax);
        std::copy(f, f + length, rmin), std::copy(f, f + length, rmax);
        continue;
      }
      for (std::size_t j = 0; j < length; ++j) {
        omin[j] = o[j] < omin[j] ? o[j] : omin[j], omax[j] = o[j] > omax[j] ? o[j] : omax[j];
        rmin[j] = f[j] < rmin[j] ? f[j] : rmin[j], rmax[j] = f[j] > rmax[j] ? f[j] : rmax[j];
      }
    }
    for (std::size_t d = rank - 1; d-- > 0;) {  // advance the leading coordinates
      if (++index[d] < static_cast<std::size_t>(shape[d])) break;
      index[d] = 0;
    }
  }
  for (std::size_t a = 0; a + 1 < rank; ++a) {
    if (acc[a])
      count_varying(*acc[a], p.axes[a]);
    else
      p.axes[a].checked = false;
  }
}

filter_result missing(const std::string& what) {
  filter_result r;
  r.reason = "cannot run: " + what;
  return r;
}

// Mean over elements of the standard deviation across arrays (seeds) of the same shape.
double mean_std_across(const std::vector<const npy_array*>& arrays) {
  const std::size_t k = arrays.size(), size = arrays.front()->size();
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
  const double mean = sum / static_cast<double>(count);
  return std::sqrt(std::max(0.0, sum_sq / static_cast<double>(count) - mean * mean));
}

pair_profile profile_pair(const npy_array& output, const npy_array& reference) {
  pair_profile p;
  if (output.type() != reference.type() || output.shape() != reference.shape()) {
    // Different layouts: moments only, through doubles.
    std::vector<double> buffer(k_chunk);
    for (auto [array, m] : {std::pair{&output, &p.output}, std::pair{&reference, &p.reference}})
      for (std::size_t start = 0; start < array->size(); start += k_chunk) {
        const std::size_t n = std::min(k_chunk, array->size() - start);
        read_chunk(*array, start, n, buffer.data());
        for (std::size_t i = 0; i < n; ++i) add_finite(*m, buffer[i]);
      }
    return p;
  }
  visit_elements(output, [&]<class T>(std::span<const T> out) {
    if constexpr (std::is_same_v<T, half>) {
      // Half outputs are rare: promote to float once.
      std::vector<float> o(out.begin(), out.end()), r(reference.size());
      const auto ref = reference.as<half>();
      std::transform(ref.begin(), ref.end(), r.begin(), [](half h) { return static_cast<float>(h); });
      profile_typed<float>(o, r, output.shape(), p);
    } else {
      profile_typed<T>(out, reference.as<T>(), output.shape(), p);
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

filter_result output_range_filter::evaluate(const filter_inputs& in) const {
  if (in.seeds.empty()) return missing("no outputs");
  filter_result r{true, std::numeric_limits<double>::infinity(), thresholds::min_range_ratio, ""};
  for (std::size_t s = 0; s < in.seeds.size(); ++s) {
    const auto& p = in.profile(in.seeds[s]);
    if (p.output.nonfinite > p.reference.nonfinite) {
      r.passed = false;
      r.value = 0;
      r.reason = fmt::format("seed {}: {} non-finite output elements", s, p.output.nonfinite);
      return r;
    }
    if (p.reference.range() <= 0) continue;
    r.value = std::min(r.value, p.output.range() / p.reference.range());
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
  for (const auto& seed : in.seeds) {
    const auto& p = in.profile(seed);
    if (p.reference.stdev() > 0) r.value = std::min(r.value, p.output.stdev() / p.reference.stdev());
  }
  const bool comparable = std::all_of(in.seeds.begin(), in.seeds.end(), same_shape);
  if (in.seeds.size() >= 2 && comparable) {
    std::vector<const npy_array*> outs, refs;
    for (const auto& seed : in.seeds) outs.push_back(seed.output), refs.push_back(seed.reference);
    const double ref_across = mean_std_across(refs);
    if (ref_across > 0) {
      const double ratio = mean_std_across(outs) / ref_across;
      if (ratio < r.value) worst = "across seeds";
      r.value = std::min(r.value, ratio);
    }
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
      r.reason = fmt::format("axis {}: the output varies in {:.1f}% of the slices where the reference varies",
                             axis, 100 * fraction);
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
};

// Sums over elements of the reference's change, its deviation from the output's, and |ref|^2.
template <class T>
impact_sums impact_typed(const T* out, const T* ref, const T* out_p, const T* ref_p, std::size_t n) {
  impact_sums s;
  for (std::size_t start = 0; start < n; start += k_chunk) {
    const std::size_t end = std::min(n, start + k_chunk);
    double change = 0, deviation = 0, norm = 0;
    for (std::size_t i = start; i < end; ++i) {
      const double d_ref = double(ref_p[i]) - double(ref[i]), d_out = double(out_p[i]) - double(out[i]);
      change += d_ref * d_ref, deviation += (d_out - d_ref) * (d_out - d_ref), norm += double(ref[i]) * double(ref[i]);
    }
    if (!std::isfinite(change + norm)) {  // non-finite reference elements: leave them out
      change = deviation = norm = 0;
      for (std::size_t i = start; i < end; ++i) {
        const double d_ref = double(ref_p[i]) - double(ref[i]), d_out = double(out_p[i]) - double(out[i]);
        if (!std::isfinite(d_ref)) continue;
        change += d_ref * d_ref, deviation += (d_out - d_ref) * (d_out - d_ref), norm += double(ref[i]) * double(ref[i]);
      }
    }
    s.ref_change += change, s.deviation += deviation, s.ref_norm += norm;
  }
  return s;
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
      } else {
        return impact_typed<T>(arrays[0]->as<T>().data(), arrays[1]->as<T>().data(), arrays[2]->as<T>().data(),
                               arrays[3]->as<T>().data(), arrays[0]->size());
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
    const auto part = impact_typed<double>(buf[0].data(), buf[1].data(), buf[2].data(), buf[3].data(), n);
    s.ref_change += part.ref_change, s.deviation += part.deviation, s.ref_norm += part.ref_norm;
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
      r.reason = fmt::format("input {}: the output's change deviates from the reference's by {:.3g} of it", p.input,
                             value);
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

const std::set<std::string> k_containers = {"pjit", "jit", "closed_call", "core_call", "custom_jvp_call",
                                            "custom_vjp_call", "custom_vjp_call_jaxpr", "remat", "checkpoint",
                                            "cond", "while", "scan", "pallas_call"};
const std::set<std::string> k_layout = {"reshape", "broadcast_in_dim", "transpose", "squeeze", "expand_dims",
                                        "slice", "pad", "concatenate", "rev", "copy", "copy_p", "device_put",
                                        "iota", "dynamic_slice", "split"};
const std::set<std::string> k_callbacks = {"pure_callback", "io_callback", "debug_callback", "callback",
                                           "host_callback", "outside_call"};
const std::set<std::string> k_forbidden_outside = {"dot_general", "conv_general_dilated", "gather", "scatter",
                                                   "scatter-add", "scatter_add", "scatter_mul", "scatter_min",
                                                   "scatter_max", "dynamic_update_slice", "sort", "cumsum",
                                                   "cumprod", "cummax", "cumlogsumexp", "argmax", "argmin",
                                                   "fft", "custom_call", "custom_linear_solve", "triangular_solve",
                                                   // a cast of data outside the kernel (precision downgrade)
                                                   "convert_element_type", "reduce_precision"};

double elements(const json& avals) {
  double total = 0;
  for (const auto& a : avals) {
    double n = 1;
    for (const auto& d : a.at("shape")) n *= d.get<double>();
    total += n;
  }
  return total;
}

// Work an equation does, in element operations (2 per multiply-add for dots).
double work_of(const json& eqn) {
  const std::string prim = eqn.value("primitive", "");
  const double multiplier = eqn.value("multiplier", 1.0);
  if (prim == "dot_general") return multiplier * 2 * elements(eqn.at("outputs")) * eqn.value("contracted", 1.0);
  if (prim.rfind("reduce_", 0) == 0 || prim == "argmax" || prim == "argmin")
    return multiplier * elements(eqn.at("inputs"));
  return multiplier * elements(eqn.at("outputs"));
}

const std::regex& harness_import_pattern() {
  static const std::regex pattern(
      R"((^|\n)\s*(from|import)\s+(tasks(\.|\s)|pallasbench\.(registry|worker|interpret)|pallasbench\s+import\s+(registry|worker|interpret)))"
      R"(|spec_from_file_location\([^)]*tasks/level|block_until_ready\s*=)");
  return pattern;
}

}  // namespace

filter_result source_analysis_filter::evaluate(const filter_inputs& in) const {
  if (!in.jaxpr_graph.is_array() || in.jaxpr_graph.empty()) return missing("no jaxpr of the kernel");
  filter_result r{true, 0.0, thresholds::max_outside_work, ""};
  std::size_t pallas_calls = 0;
  double inside = 0, outside = 0;
  std::vector<std::string> problems;
  std::set<std::string> outside_ops;
  for (const auto& eqn : in.jaxpr_graph) {
    const std::string prim = eqn.value("primitive", "");
    const bool in_kernel = eqn.value("inside_pallas", false);
    if (prim == "pallas_call" && !in_kernel) ++pallas_calls;
    if (k_callbacks.contains(prim) || prim.find("callback") != std::string::npos) {
      problems.push_back(fmt::format("host callback '{}'", prim));
      continue;
    }
    if (k_containers.contains(prim) || (!in_kernel && k_layout.contains(prim))) continue;
    const double work = work_of(eqn);
    if (in_kernel) {
      inside += work;
      continue;
    }
    if (k_forbidden_outside.contains(prim) && elements(eqn.at("outputs")) > thresholds::scalar_setup_elements)
      problems.push_back(fmt::format("'{}' outside pallas_call", prim));
    if (elements(eqn.at("outputs")) > thresholds::scalar_setup_elements) {
      outside += work;
      outside_ops.insert(prim);
    }
  }
  if (pallas_calls == 0) problems.insert(problems.begin(), "no pallas_call in the kernel's jaxpr");
  const double reference_work = std::max(in.task_flops, inside + outside);
  r.value = reference_work > 0 ? outside / reference_work : 0.0;
  if (r.value > r.threshold) {
    std::string ops;
    for (const auto& op : outside_ops) ops += (ops.empty() ? "" : ", ") + op;
    problems.push_back(fmt::format("{:.1f}% of the work outside pallas_call ({})", 100 * r.value, ops));
  }
  if (std::regex_search(in.source, harness_import_pattern()))
    problems.push_back("the source imports the harness or the task's reference module");
  if (!in.task_modules_loaded.empty())
    problems.push_back(fmt::format("the candidate loaded task file {}", in.task_modules_loaded.front()));
  r.passed = problems.empty();
  const double total = inside + outside;
  const double inside_fraction = total > 0 ? inside / total : 0.0;
  if (r.passed) {
    r.reason = fmt::format("{} pallas_call(s); {:.1f}% of the counted work inside them", pallas_calls,
                           100 * inside_fraction);
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
