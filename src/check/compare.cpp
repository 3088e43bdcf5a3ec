#include "pallasbench/check/compare.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "detail/mismatch.hpp"

namespace pallasbench {
namespace {

constexpr double k_infinity = std::numeric_limits<double>::infinity();

struct accumulator {
  comparison result;
  double diff_sq = 0;
  double ref_sq = 0;

  void add_float(double out, double ref, const tolerance& tol) {
    if (!std::isfinite(ref)) {
      // A NaN reference wants NaN, an infinite one the same infinity.
      const bool same = std::isnan(ref) ? std::isnan(out) : out == ref;
      if (!same) {
        ++result.mismatches;
        result.tolerance_ratio = k_infinity;
      }
      return;
    }
    if (!std::isfinite(out)) {
      ++result.unexpected_nonfinite;
      ++result.mismatches;
      result.tolerance_ratio = k_infinity;
      return;
    }
    const double diff = std::fabs(out - ref);
    const double magnitude = std::fabs(ref);
    result.max_abs_error = std::max(result.max_abs_error, diff);
    if (magnitude >= k_rel_error_floor) result.max_rel_error = std::max(result.max_rel_error, diff / magnitude);
    const double bound = tol.atol + tol.rtol * magnitude;
    if (diff > bound) ++result.mismatches;
    if (diff > 0) result.tolerance_ratio = std::max(result.tolerance_ratio, bound > 0 ? diff / bound : k_infinity);
    diff_sq += diff * diff;
    ref_sq += ref * ref;
  }

  template <class T>
  void add_integer(T out, T ref) {
    const double diff = std::fabs(static_cast<double>(out) - static_cast<double>(ref));
    const double magnitude = std::fabs(static_cast<double>(ref));
    result.max_abs_error = std::max(result.max_abs_error, diff);
    if (magnitude >= k_rel_error_floor) result.max_rel_error = std::max(result.max_rel_error, diff / magnitude);
    if (out != ref) {
      ++result.mismatches;
      result.tolerance_ratio = k_infinity;  // integers compare exactly
    }
    diff_sq += diff * diff;
    ref_sq += magnitude * magnitude;
  }
};

template <class T>
void accumulate(std::span<const T> out, std::span<const T> ref, const tolerance& tol, accumulator& acc) {
  for (std::size_t i = 0; i < out.size(); ++i) {
    if constexpr (std::is_integral_v<T>)
      acc.add_integer(out[i], ref[i]);
    else
      acc.add_float(static_cast<double>(out[i]), static_cast<double>(ref[i]), tol);
  }
}

comparison refuse(std::string reason) {
  comparison result;
  result.reason = std::move(reason);
  result.max_abs_error = std::numeric_limits<double>::infinity();
  result.max_rel_error = std::numeric_limits<double>::infinity();
  result.rel_norm_error = std::numeric_limits<double>::infinity();
  result.tolerance_ratio = std::numeric_limits<double>::infinity();
  return result;
}

std::vector<double> as_doubles(const npy_array& array) {
  std::vector<double> values;
  values.reserve(array.size());
  visit_elements(array, [&]<class T>(std::span<const T> elements) {
    for (const T v : elements) values.push_back(static_cast<double>(v));
  });
  return values;
}

// Past this many elements a failure is not explained: the two arrays in double would take 1 GiB.
constexpr std::size_t k_explain_max_elements = std::size_t{1} << 26;

// Only a failed comparison pays for this: the arrays in double, the worst elements and the hint.
void explain(const npy_array& out, const npy_array& ref, const tolerance& tol, comparison& result) {
  if (out.size() > k_explain_max_elements) return;
  auto detail = detail::explain_mismatch(as_doubles(out), as_doubles(ref), ref.shape(), tol);
  result.worst = std::move(detail.worst);
  result.hint = std::move(detail.hint);
}

}  // namespace

std::string shape_string(const npy_array& array) { return fmt::format("({})", fmt::join(array.shape(), ", ")); }

comparison compare(const npy_array& out, const npy_array& ref, const tolerance& tol) {
  if (out.shape() != ref.shape()) {
    auto result = refuse(fmt::format("shape {} differs from the reference's {}", shape_string(out), shape_string(ref)));
    result.hint = detail::shape_hint(out.shape(), ref.shape());
    return result;
  }
  if (out.type() != ref.type())
    return refuse(
        fmt::format("dtype {} differs from the reference's {}", dtype_name(out.type()), dtype_name(ref.type())));
  accumulator acc;
  acc.result.elements = out.size();
  visit_elements(out, [&]<class T>(std::span<const T> values) { accumulate(values, ref.as<T>(), tol, acc); });
  auto& result = acc.result;
  const double diff_norm = std::sqrt(acc.diff_sq);
  const double ref_norm = std::sqrt(acc.ref_sq);
  result.rel_norm_error =
      ref_norm > 0 ? diff_norm / ref_norm : (diff_norm > 0 ? std::numeric_limits<double>::infinity() : 0.0);
  if (result.rel_norm_error > 0)
    result.tolerance_ratio =
        std::max(result.tolerance_ratio, tol.rel_norm > 0 ? result.rel_norm_error / tol.rel_norm : k_infinity);
  if (result.unexpected_nonfinite > 0)
    result.reason = fmt::format("{} NaN/Inf elements where the reference is finite", result.unexpected_nonfinite);
  else if (result.mismatches > 0)
    result.reason = fmt::format("{} of {} elements outside |out-ref| <= {:g} + {:g}*|ref| (max abs error {:.3g})",
                                result.mismatches, result.elements, tol.atol, tol.rtol, result.max_abs_error);
  else if (result.rel_norm_error > tol.rel_norm)
    result.reason = fmt::format("relative norm error {:.3g} exceeds {:g}", result.rel_norm_error, tol.rel_norm);
  result.passed = result.reason.empty();
  if (!result.passed) explain(out, ref, tol, result);
  return result;
}

bool bitwise_equal(const npy_array& a, const npy_array& b) {
  return a.type() == b.type() && a.shape() == b.shape() && a.data().size() == b.data().size() &&
         std::memcmp(a.data().data(), b.data().data(), a.data().size()) == 0;
}

}  // namespace pallasbench
