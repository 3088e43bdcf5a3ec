#include "mismatch.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <queue>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace pallasbench::detail {
namespace {

constexpr double k_infinity = std::numeric_limits<double>::infinity();
// A transformed reference "matches" when this share of the elements it is compared on agree: a
// shifted result differs at its edge, a transposed one nowhere.
constexpr double k_match_share = 0.99;

// |out - ref|; 0 for the same NaN/Inf, infinite for any other NaN/Inf.
double error_of(double out, double ref) {
  if (std::isfinite(out) && std::isfinite(ref)) return std::fabs(out - ref);
  const bool same = std::isnan(ref) ? std::isnan(out) : out == ref;
  return same ? 0.0 : k_infinity;
}

bool agrees(double out, double ref, const tolerance& tol) {
  const double e = error_of(out, ref);
  return e == 0 || e <= tol.atol + tol.rtol * std::fabs(ref);
}

// C-order strides of `shape`.
std::vector<std::size_t> strides_of(const std::vector<std::int64_t>& shape) {
  std::vector<std::size_t> strides(shape.size(), 1);
  for (std::size_t a = shape.size(); a-- > 1;) strides[a - 1] = strides[a] * static_cast<std::size_t>(shape[a]);
  return strides;
}

std::vector<std::int64_t> unravel(std::size_t flat, const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> index(shape.size());
  for (std::size_t a = shape.size(); a-- > 0;) {
    index[a] = static_cast<std::int64_t>(flat % static_cast<std::size_t>(shape[a]));
    flat /= static_cast<std::size_t>(shape[a]);
  }
  return index;
}

std::vector<worst_element> worst_of(std::span<const double> out, std::span<const double> ref,
                                    const std::vector<std::int64_t>& shape, std::size_t count) {
  using entry = std::pair<double, std::size_t>;  // error, flat index; the heap's top is the least
  std::priority_queue<entry, std::vector<entry>, std::greater<>> heap;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double e = error_of(out[i], ref[i]);
    if (e == 0) continue;
    if (heap.size() < count) {
      heap.emplace(e, i);
    } else if (e > heap.top().first) {
      heap.pop();
      heap.emplace(e, i);
    }
  }
  std::vector<worst_element> worst;
  for (; !heap.empty(); heap.pop()) {
    const auto [e, i] = heap.top();
    worst.push_back({unravel(i, shape), out[i], ref[i], e});
  }
  // Largest error first; among equal errors (NaN/Inf ones), in index order.
  std::reverse(worst.begin(), worst.end());
  std::stable_sort(worst.begin(), worst.end(), [](const worst_element& a, const worst_element& b) {
    return a.error > b.error || (a.error == b.error && a.index < b.index);
  });
  return worst;
}

// The share of the elements where out[i] agrees with ref[source(i)]; source gives nullopt where
// the transformed reference has no element (the edge of a shift).
template <class Source>
double share_matching(std::span<const double> out, std::span<const double> ref, const tolerance& tol, Source source) {
  std::size_t compared = 0, matching = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto j = source(i);
    if (!j) continue;
    ++compared;
    matching += agrees(out[i], ref[*j], tol);
  }
  return compared ? static_cast<double>(matching) / static_cast<double>(compared) : 0.0;
}

std::string nonfinite_hint(std::span<const double> out, std::span<const double> ref,
                           const std::vector<std::int64_t>& shape) {
  std::size_t count = 0, first = 0;
  for (std::size_t i = 0; i < out.size() && count == 0; ++i)
    if (!std::isfinite(out[i]) && std::isfinite(ref[i])) first = i, ++count;
  if (count == 0) return "";  // the reason gives the count; this, where they start
  return fmt::format("the first NaN/Inf where the reference is finite is at index [{}]",
                     fmt::join(unravel(first, shape), ", "));
}

std::string zeros_hint(std::span<const double> out, std::span<const double> ref) {
  const bool zeros = std::all_of(out.begin(), out.end(), [](double v) { return v == 0; });
  const bool ref_zeros = std::all_of(ref.begin(), ref.end(), [](double v) { return v == 0; });
  return zeros && !ref_zeros ? "the output is all zeros: never written?" : "";
}

std::string transpose_hint(std::span<const double> out, std::span<const double> ref,
                           const std::vector<std::int64_t>& shape, const tolerance& tol) {
  const auto strides = strides_of(shape);
  for (std::size_t a = 0; a < shape.size(); ++a)
    for (std::size_t b = a + 1; b < shape.size(); ++b) {
      if (shape[a] != shape[b] || shape[a] < 2) continue;
      const auto swapped = [&](std::size_t i) -> std::optional<std::size_t> {
        const auto ia = (i / strides[a]) % static_cast<std::size_t>(shape[a]);
        const auto ib = (i / strides[b]) % static_cast<std::size_t>(shape[b]);
        return i - ia * strides[a] - ib * strides[b] + ib * strides[a] + ia * strides[b];
      };
      if (share_matching(out, ref, tol, swapped) >= k_match_share)
        return fmt::format("the output is the reference with axes {} and {} swapped: a transposed result", a, b);
    }
  return "";
}

std::string shift_hint(std::span<const double> out, std::span<const double> ref, const std::vector<std::int64_t>& shape,
                       const tolerance& tol) {
  const auto strides = strides_of(shape);
  for (std::size_t a = 0; a < shape.size(); ++a) {
    if (shape[a] < 3) continue;
    for (const int step : {1, -1}) {
      const auto shifted = [&](std::size_t i) -> std::optional<std::size_t> {
        const auto at = static_cast<std::int64_t>((i / strides[a]) % static_cast<std::size_t>(shape[a])) + step;
        if (at < 0 || at >= shape[a]) return std::nullopt;
        return step > 0 ? i + strides[a] : i - strides[a];
      };
      if (share_matching(out, ref, tol, shifted) >= k_match_share)
        return fmt::format(
            "the output is the reference shifted by one along axis {}: out[i] holds ref[i{}1] (an "
            "off-by-one index)",
            a, step > 0 ? "+" : "-");
    }
  }
  return "";
}

std::string factor_hint(std::span<const double> out, std::span<const double> ref, const tolerance& tol) {
  double dot = 0, ref_sq = 0;
  for (std::size_t i = 0; i < out.size(); ++i)
    if (std::isfinite(out[i]) && std::isfinite(ref[i])) dot += out[i] * ref[i], ref_sq += ref[i] * ref[i];
  if (ref_sq == 0) return "";
  const double factor = dot / ref_sq;
  if (factor == 0 || std::fabs(factor - 1) < 1e-3) return "";
  std::size_t matching = 0;
  for (std::size_t i = 0; i < out.size(); ++i) matching += agrees(out[i], factor * ref[i], tol);
  if (static_cast<double>(matching) < k_match_share * static_cast<double>(out.size())) return "";
  return fmt::format("the output is the reference times {:.4g}: a constant factor (a scale missing or applied twice?)",
                     factor);
}

// `values` summed over `axis`: the other axes' elements in C order.
std::vector<double> sum_over(std::span<const double> values, const std::vector<std::int64_t>& shape, std::size_t axis) {
  const auto strides = strides_of(shape);
  const auto n = static_cast<std::size_t>(shape[axis]);
  std::vector<double> sums(values.size() / n, 0.0);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto outer = i / (strides[axis] * n), inner = i % strides[axis];
    sums[outer * strides[axis] + inner] += values[i];
  }
  return sums;
}

bool sums_agree(const std::vector<double>& a, const std::vector<double>& b, const tolerance& tol, double n) {
  for (std::size_t i = 0; i < a.size(); ++i)  // a sum of n elements: n times the elementwise bound
    if (!(std::fabs(a[i] - b[i]) <= n * tol.atol + tol.rtol * std::fabs(b[i]) + 1e-3 * std::fabs(b[i]))) return false;
  return true;
}

// Summed over axis a the output matches the reference summed over another axis b (and not summed
// over b itself): the operation ran along the wrong axis (a softmax whose columns sum to one).
std::string axis_hint(std::span<const double> out, std::span<const double> ref, const std::vector<std::int64_t>& shape,
                      const tolerance& tol) {
  for (std::size_t a = 0; a < shape.size(); ++a)
    for (std::size_t b = 0; b < shape.size(); ++b) {
      if (a == b || shape[a] != shape[b] || shape[a] < 2) continue;
      const auto out_a = sum_over(out, shape, a), out_b = sum_over(out, shape, b), ref_b = sum_over(ref, shape, b);
      const auto n = static_cast<double>(shape[a]);
      if (sums_agree(out_a, ref_b, tol, n) && !sums_agree(out_b, ref_b, tol, n))
        return fmt::format(
            "summed over axis {} the output matches the reference summed over axis {}: computed along "
            "axis {} instead of axis {}?",
            a, b, a, b);
    }
  return "";
}

}  // namespace

mismatch_detail explain_mismatch(std::span<const double> out, std::span<const double> ref,
                                 const std::vector<std::int64_t>& shape, const tolerance& tol, std::size_t count) {
  mismatch_detail detail;
  detail.worst = worst_of(out, ref, shape, count);
  if (out.empty()) return detail;
  for (const auto& hint : {std::function<std::string()>([&] { return nonfinite_hint(out, ref, shape); }),
                           std::function<std::string()>([&] { return zeros_hint(out, ref); }),
                           std::function<std::string()>([&] { return transpose_hint(out, ref, shape, tol); }),
                           std::function<std::string()>([&] { return shift_hint(out, ref, shape, tol); }),
                           std::function<std::string()>([&] { return factor_hint(out, ref, tol); }),
                           std::function<std::string()>([&] { return axis_hint(out, ref, shape, tol); })}) {
    detail.hint = hint();
    if (!detail.hint.empty()) break;
  }
  return detail;
}

std::string shape_hint(const std::vector<std::int64_t>& out, const std::vector<std::int64_t>& ref) {
  if (out.size() != ref.size()) return "";
  for (std::size_t a = 0; a < ref.size(); ++a)
    for (std::size_t b = a + 1; b < ref.size(); ++b) {
      auto swapped = ref;
      std::swap(swapped[a], swapped[b]);
      if (swapped == out && swapped != ref)
        return fmt::format("the output's shape is the reference's with axes {} and {} swapped: a transposed result?", a,
                           b);
    }
  return "";
}

}  // namespace pallasbench::detail
