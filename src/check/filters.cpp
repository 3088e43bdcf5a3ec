#include "pallasbench/filters.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <regex>
#include <set>
#include <stdexcept>

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

struct moments {
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  double sum = 0, sum_sq = 0;
  std::size_t count = 0, nonfinite = 0;
  [[nodiscard]] double range() const { return count ? max - min : 0; }
  [[nodiscard]] double stdev() const {
    if (count < 2) return 0;
    const double mean = sum / static_cast<double>(count);
    return std::sqrt(std::max(0.0, sum_sq / static_cast<double>(count) - mean * mean));
  }
};

moments moments_of(const npy_array& a) {
  moments m;
  std::vector<double> buffer(k_chunk);
  for (std::size_t start = 0; start < a.size(); start += k_chunk) {
    const std::size_t n = std::min(k_chunk, a.size() - start);
    read_chunk(a, start, n, buffer.data());
    for (std::size_t i = 0; i < n; ++i) {
      const double x = buffer[i];
      if (!std::isfinite(x)) {
        ++m.nonfinite;
        continue;
      }
      m.min = std::min(m.min, x);
      m.max = std::max(m.max, x);
      m.sum += x;
      m.sum_sq += x * x;
      ++m.count;
    }
  }
  return m;
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

// Fraction of 1-D slices along `axis` in which the output varies, among those where the
// reference varies beyond rounding (returns -1 when the reference varies nowhere).
double varying_fraction(const npy_array& out, const npy_array& ref, std::size_t axis) {
  const auto& shape = ref.shape();
  std::size_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < axis; ++d) outer *= static_cast<std::size_t>(shape[d]);
  for (std::size_t d = axis + 1; d < shape.size(); ++d) inner *= static_cast<std::size_t>(shape[d]);
  const auto length = static_cast<std::size_t>(shape[axis]);
  const bool exact = !is_floating(ref.type());
  const std::size_t rows_per_chunk = std::max<std::size_t>(1, k_chunk / inner);
  std::vector<double> ref_buf(rows_per_chunk * inner), out_buf(rows_per_chunk * inner);
  std::vector<double> rmin(inner), rmax(inner), omin(inner), omax(inner);
  std::size_t ref_varies = 0, both_vary = 0;
  for (std::size_t o = 0; o < outer; ++o) {
    std::fill(rmin.begin(), rmin.end(), std::numeric_limits<double>::infinity());
    std::fill(omin.begin(), omin.end(), std::numeric_limits<double>::infinity());
    std::fill(rmax.begin(), rmax.end(), -std::numeric_limits<double>::infinity());
    std::fill(omax.begin(), omax.end(), -std::numeric_limits<double>::infinity());
    for (std::size_t j0 = 0; j0 < length; j0 += rows_per_chunk) {
      const std::size_t rows = std::min(rows_per_chunk, length - j0);
      const std::size_t start = (o * length + j0) * inner;
      read_chunk(ref, start, rows * inner, ref_buf.data());
      read_chunk(out, start, rows * inner, out_buf.data());
      for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t i = 0; i < inner; ++i) {
          const double x = ref_buf[r * inner + i], y = out_buf[r * inner + i];
          rmin[i] = std::min(rmin[i], x), rmax[i] = std::max(rmax[i], x);
          omin[i] = std::min(omin[i], y), omax[i] = std::max(omax[i], y);
        }
    }
    for (std::size_t i = 0; i < inner; ++i) {
      // f32 rounding of the reference itself must not count as variation.
      const double noise = exact ? 0.0 : 4 * 1.1920929e-7 * std::max(std::fabs(rmin[i]), std::fabs(rmax[i]));
      if (!(rmax[i] - rmin[i] > noise)) continue;
      ++ref_varies;
      if (omax[i] - omin[i] > 0) ++both_vary;
    }
  }
  return ref_varies ? static_cast<double>(both_vary) / static_cast<double>(ref_varies) : -1.0;
}

}  // namespace

json filter_result::to_json() const {
  return {{"passed", passed},
          {"value", std::isfinite(value) ? json(value) : json(nullptr)},
          {"threshold", threshold},
          {"reason", reason}};
}

filter_result output_range_filter::evaluate(const filter_inputs& in) const {
  if (in.seeds.empty()) return missing("no outputs");
  filter_result r{true, std::numeric_limits<double>::infinity(), thresholds::min_range_ratio, ""};
  for (std::size_t s = 0; s < in.seeds.size(); ++s) {
    const auto out = moments_of(*in.seeds[s].output), ref = moments_of(*in.seeds[s].reference);
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
  for (const auto& seed : in.seeds) {
    const double ref_std = moments_of(*seed.reference).stdev();
    if (ref_std > 0) r.value = std::min(r.value, moments_of(*seed.output).stdev() / ref_std);
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
  filter_result r{true, 1.0, thresholds::min_varying_slices, ""};
  const auto& pair = in.seeds.front();
  if (!same_shape(pair)) return missing("output shape differs from the reference's");
  const auto& shape = pair.reference->shape();
  std::size_t checked = 0;
  for (std::size_t axis = 0; axis < shape.size(); ++axis) {
    const double fraction = varying_fraction(*pair.output, *pair.reference, axis);
    if (fraction < 0) continue;  // the reference is constant along this axis
    ++checked;
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
  return r;
}

filter_result input_impact_filter::evaluate(const filter_inputs& in) const {
  if (in.input_count == 0) return missing("the task has no inputs listed");
  if (in.perturbations.size() < in.input_count)
    return missing(fmt::format("{} of {} inputs perturbed", in.perturbations.size(), in.input_count));
  filter_result r{true, 0.0, thresholds::max_impact_deviation, ""};
  std::vector<std::string> notes;
  for (const auto& p : in.perturbations) {
    const npy_array* arrays[4] = {p.base.output, p.base.reference, p.perturbed.output, p.perturbed.reference};
    const std::size_t size = p.base.reference->size();
    for (const auto* a : arrays)
      if (a->size() != size) return missing(fmt::format("input {}: outputs of different sizes", p.input));
    std::array<std::vector<double>, 4> buf;
    for (auto& b : buf) b.resize(k_chunk);
    double ref_change = 0, deviation = 0, ref_norm = 0;
    for (std::size_t start = 0; start < size; start += k_chunk) {
      const std::size_t n = std::min(k_chunk, size - start);
      for (int k = 0; k < 4; ++k) read_chunk(*arrays[k], start, n, buf[k].data());
      for (std::size_t i = 0; i < n; ++i) {
        const double d_ref = buf[3][i] - buf[1][i], d_out = buf[2][i] - buf[0][i];
        if (!std::isfinite(d_ref)) continue;
        ref_change += d_ref * d_ref;
        deviation += (d_out - d_ref) * (d_out - d_ref);
        ref_norm += buf[1][i] * buf[1][i];
      }
    }
    if (std::sqrt(ref_change) <= 1e-7 * std::sqrt(ref_norm)) {
      notes.push_back(fmt::format("{}: perturbation leaves the reference unchanged", p.input));
      continue;
    }
    const double value = std::isfinite(deviation) ? std::sqrt(deviation / ref_change) : std::numeric_limits<double>::infinity();
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
                                                   "fft", "custom_call", "custom_linear_solve", "triangular_solve"};

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
