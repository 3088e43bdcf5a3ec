// When to stop taking timing samples: each rule is one class behind a common interface.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "pallasbench/measure/statistics.hpp"

namespace pallasbench {

class stopping_criterion {
public:
  virtual ~stopping_criterion() = default;
  // One sample and what taking it cost in host time (the call, its synchronisation and, for
  // device timing, the L2 flush before it): the time rules count cost, the noise rules samples.
  virtual void add(double sample_us, double cost_us) = 0;
  void add(double sample_us) { add(sample_us, sample_us); }
  [[nodiscard]] virtual bool finished() const = 0;
  // Whether the samples met the noise goal (false when the budget ran out first).
  [[nodiscard]] virtual bool converged() const = 0;
  [[nodiscard]] virtual std::string state() const = 0;  // why it stopped, or how far it is
  [[nodiscard]] const std::vector<double>& samples() const { return m_samples; }

protected:
  std::vector<double> m_samples;
};

struct stdrel_options {
  std::size_t min_samples = 10;
  // Host seconds spent sampling before convergence may be declared. nvbench counts kernel time
  // here; with a flush and a dispatch per sample, a 5 us kernel would need 50,000 samples
  // (seconds of host time) to cover 0.25 s of kernel time, so the harness counts sampling cost.
  double min_time_s = 0.25;
  double max_noise = 0.005;  // stdev / mean
  double budget_s = 5.0;     // host seconds of sampling after which it stops regardless
  // Half-width of the median's distribution-free 95% interval, relative to the median. The
  // median and its interval are what the record reports and the speedup divides: once they are
  // this precise more samples change nothing a reader uses, whatever the spread of single samples
  // (kernels of a few microseconds with a cold L2 spread 1-5% for ever, and never meet max_noise).
  // 0 turns this exit off (the noise rule alone, as nvbench's).
  double max_median_ci = 0.0025;
};

// nvbench's "stdrel" rule: stop once there are min_samples samples covering min_time_s and the
// relative noise (stdev / mean) is at most max_noise, or the median is known to max_median_ci
// (its 95% interval, order statistics); or once the time budget is spent.
class stdrel_criterion final : public stopping_criterion {
public:
  explicit stdrel_criterion(stdrel_options options) : m_options(options) {}
  using stopping_criterion::add;
  void add(double sample_us, double cost_us) override;
  [[nodiscard]] bool finished() const override;
  [[nodiscard]] bool converged() const override;
  [[nodiscard]] std::string state() const override;
  [[nodiscard]] double noise() const;
  // Half-width of the median's 95% interval over the median (infinite before two samples).
  [[nodiscard]] double median_ci() const;

private:
  [[nodiscard]] bool minimums_met() const;

  stdrel_options m_options;
  double m_total_us = 0;
  double m_sum = 0, m_sum_sq = 0;
  // median_ci() sorts the samples: kept until the next sample (the loop asks several times a batch).
  mutable std::size_t m_ci_samples = 0;
  mutable double m_ci = 0;
};

}  // namespace pallasbench
