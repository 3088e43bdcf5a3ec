// `pallasbench compare BASE NEW`: two sides' records joined row by row, each row given a verdict on
// its kernel's median time and on whether it still passes. A side is one run or several
// (repetitions): with at least two runs a side, a speed verdict needs the Mann-Whitney U test's
// p-value below alpha (google-benchmark's compare.py), else the CI95 intervals of the one run to be
// disjoint (nvbench's compare-robust). Pure: records in, rows out; the CLI reads the files and
// chooses the exit code.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "pallasbench/core/enum_names.hpp"

namespace pallasbench {

enum class compare_verdict {
  same,        // medians within the threshold of each other
  faster,      // NEW's median lower by more than the threshold, and beyond the noise: p < alpha over
               // repetitions, or (one run a side) the CI95 intervals disjoint
  slower,      // likewise higher
  ambiguous,   // medians differ by more than the threshold but the noise could explain it
  no_timing,   // a side has no median: no speed verdict
  wall_clock,  // a side timed by the host's wall clock (the CPU's interpret mode): not compared
  broke,       // passed in BASE (ok and robust), does not in NEW
  fixed,       // the reverse
  added,       // only in NEW
  removed,     // only in BASE
};

template <>
struct enum_names<compare_verdict> {
  static constexpr std::string_view what = "verdict";
  static constexpr std::array entries{
      std::pair{compare_verdict::same, std::string_view("SAME")},
      std::pair{compare_verdict::faster, std::string_view("FASTER")},
      std::pair{compare_verdict::slower, std::string_view("SLOWER")},
      std::pair{compare_verdict::ambiguous, std::string_view("AMBIGUOUS")},
      std::pair{compare_verdict::no_timing, std::string_view("NO_TIMING")},
      std::pair{compare_verdict::wall_clock, std::string_view("WALL_CLOCK")},
      std::pair{compare_verdict::broke, std::string_view("BROKE")},
      std::pair{compare_verdict::fixed, std::string_view("FIXED")},
      std::pair{compare_verdict::added, std::string_view("ADDED")},
      std::pair{compare_verdict::removed, std::string_view("REMOVED")},
  };
};

struct comparison_options {
  // Relative difference of the medians, |new - base| / base, that a speed verdict needs to exceed
  // (nvbench's compare-robust default).
  double threshold = 0.02;
  // With two runs or more on each side: the U test's p-value a speed verdict needs to be below
  // (compare.py's default alpha).
  double alpha = 0.05;
};

// The part of one record that a comparison reads.
struct compared_side {
  std::string status;               // "ok", "incorrect", ... as recorded (no parse: any status compares)
  std::optional<bool> robust;       // result.robustness_passed
  std::optional<double> median_us;  // timing.median_us; over repetitions the median of the runs' medians
  std::vector<double> samples_us;   // each run's timing.median_us (one value for one run)
  bool wall_clock = false;          // timing.timer is "wall": the CPU's host clock, not device time
  int runs = 1;                     // records merged into this side (repetitions)
  std::optional<std::pair<double, double>> ci95_us;  // timing.ci95_us [lo, hi]
  bool passed = false;                               // the record's `passed` (record_passed)
  // timing.speedup (XLA's median over the kernel's, device-timed records only); over repetitions
  // the median of the runs' speedups, none when a run has none.
  std::optional<double> speedup;
  std::vector<double> speedups;  // each run's timing.speedup

  [[nodiscard]] static compared_side from_record(const nlohmann::json& record);
};

struct compare_row {
  std::string task;  // kernel_name
  std::string size;
  std::string dtype;             // the run's dtype (the record's `dtype`)
  std::string backend;           // a suite task's implementation (config.backend); "" for a candidate
  std::string candidate_sha256;  // candidate.sha256
  std::string candidate;         // a user candidate's request id or file name; "" for the suite's kernel
  std::optional<compared_side> base;
  std::optional<compared_side> next;  // NEW's side ("new" is a keyword)
  compare_verdict verdict = compare_verdict::no_timing;
  std::optional<double> change;   // (new - base) / base of the medians
  std::optional<double> p_value;  // the U test's, two-sided, when both sides have two runs or more
  std::string note;               // what else changed: status, robustness, a missing CI

  [[nodiscard]] nlohmann::json to_json() const;
};

struct compare_result {
  std::vector<compare_row> rows;  // BASE's order, then the rows only NEW has in NEW's order
  [[nodiscard]] std::map<compare_verdict, int> counts() const;
  // Anything SLOWER or BROKE: what CI gates on (exit 1).
  [[nodiscard]] bool regressed() const;
  // A timed row judged by one run a side (the CI95 rule, not the U test).
  [[nodiscard]] bool within_run_only() const;
  [[nodiscard]] nlohmann::json to_json() const;  // {"rows": [...], "counts": {"SAME": n, ...}}
};

// The speed verdict of two timed sides (both medians present, base median > 0); `p_value` gets the
// U test's p-value when both sides hold two samples or more.
[[nodiscard]] compare_verdict speed_verdict(const compared_side& base, const compared_side& next,
                                            const comparison_options& options,
                                            std::optional<double>* p_value = nullptr);

// Joins on (task, size, dtype, backend, candidate sha256); within one side a later record of the same key
// replaces an earlier one, as `report` does.
[[nodiscard]] compare_result compare_records(const std::vector<nlohmann::json>& base,
                                             const std::vector<nlohmann::json>& next,
                                             const comparison_options& options = {});

// Repetitions: each side is a list of runs (one records list each). Within a run a later record of
// a key replaces an earlier one; across runs the records of a key are samples of one row (its
// median the median of theirs; it passes when every run passed).
[[nodiscard]] compare_result compare_runs(const std::vector<std::vector<nlohmann::json>>& base_runs,
                                          const std::vector<std::vector<nlohmann::json>>& next_runs,
                                          const comparison_options& options = {});

// A GitHub markdown table (task, size, base median, new median, change, p, verdict, note), then one
// count line per verdict that occurs.
void print_compare_markdown(std::ostream& out, const compare_result& result);

}  // namespace pallasbench
