#include "pallasbench/report/u_test.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace pallasbench {
namespace {

// scipy's 'auto' rule: exact when a sample is this small and nothing is tied.
constexpr std::size_t k_exact_max = 8;

struct ranking {
  double rank_sum_x = 0;  // the first sample's ranks, ties given their mean rank
  double tie_term = 0;    // sum of t^3 - t over the groups of t equal values
  bool ties = false;
};

ranking rank(std::span<const double> x, std::span<const double> y) {
  std::vector<std::pair<double, bool>> all;  // value, from x
  for (const double v : x) all.emplace_back(v, true);
  for (const double v : y) all.emplace_back(v, false);
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  ranking r;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    while (j < all.size() && all[j].first == all[i].first) ++j;
    const double t = static_cast<double>(j - i);
    const double mean_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    for (std::size_t k = i; k < j; ++k)
      if (all[k].second) r.rank_sum_x += mean_rank;
    if (t > 1) {
      r.ties = true;
      r.tie_term += t * t * t - t;
    }
    i = j;
  }
  return r;
}

// P(U >= u) under the null hypothesis, from the number of orderings giving each U: counts[n][k]
// for n of the x values among the m y values, built one value at a time.
double exact_upper_tail(std::size_t n, std::size_t m, double u) {
  const std::size_t most = n * m;
  // table[i][j][k]: orderings of i x's and j y's with U = k (one side of at most 8: small).
  std::vector<std::vector<std::vector<double>>> table(n + 1, std::vector<std::vector<double>>(m + 1));
  for (std::size_t i = 0; i <= n; ++i)
    for (std::size_t j = 0; j <= m; ++j) {
      auto& cell = table[i][j];
      cell.assign(i * j + 1, 0.0);
      if (i == 0 || j == 0) {
        cell[0] = 1;
        continue;
      }
      // The largest value is an x (it beats all j y's) or a y (it adds nothing).
      for (std::size_t k = 0; k < table[i - 1][j].size(); ++k) cell[k + j] += table[i - 1][j][k];
      for (std::size_t k = 0; k < table[i][j - 1].size(); ++k) cell[k] += table[i][j - 1][k];
    }
  const auto& counts = table[n][m];
  const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
  double tail = 0;
  for (std::size_t k = 0; k <= most; ++k)
    if (static_cast<double>(k) >= u - 1e-9) tail += counts[k];
  return tail / total;
}

}  // namespace

u_test_result mann_whitney_u(std::span<const double> x, std::span<const double> y) {
  if (x.empty() || y.empty())
    throw std::invalid_argument(
        fmt::format("Mann-Whitney U: each sample needs a value (sizes {} and {})", x.size(), y.size()));
  const auto n = static_cast<double>(x.size());
  const auto m = static_cast<double>(y.size());
  const auto r = rank(x, y);
  u_test_result result;
  result.u = r.rank_sum_x - n * (n + 1) / 2;
  // Two-sided: the tail beyond the larger of U and its mirror n*m - U, doubled.
  const double u_big = std::max(result.u, n * m - result.u);
  if (std::min(x.size(), y.size()) <= k_exact_max && !r.ties) {
    result.exact = true;
    result.p_value = std::min(1.0, 2 * exact_upper_tail(x.size(), y.size(), u_big));
    return result;
  }
  const double total = n + m;
  const double variance = n * m / 12 * ((total + 1) - r.tie_term / (total * (total - 1)));
  if (variance <= 0) return result;  // every value equal: no evidence of a difference (p = 1)
  const double z = (u_big - n * m / 2 - 0.5) / std::sqrt(variance);
  // 2 * P(Z > z) for a standard normal Z.
  result.p_value = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return result;
}

}  // namespace pallasbench
