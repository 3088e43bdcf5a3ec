// Robustness filters: does a kernel that passes the tolerance really compute the task? The
// interface every filter implements, what it says of itself, its result and the evidence it reads.
#pragma once

#include <array>
#include <cstddef>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "pallasbench/check/filters/profiles.hpp"
#include "pallasbench/check/npy.hpp"
#include "pallasbench/core/enum_names.hpp"
#include "pallasbench/suite/tolerance.hpp"

namespace pallasbench {

struct module_analysis;

// How a filter's value must compare with its threshold to pass: at or above it, at or below it,
// or no threshold at all (a qualitative filter: its reasons alone decide).
enum class pass_direction { at_least, at_most, reason_only };

template <>
struct enum_names<pass_direction> {
  static constexpr std::string_view what = "pass direction";
  static constexpr std::array entries{
      std::pair{pass_direction::at_least, std::string_view(">=")},
      std::pair{pass_direction::at_most, std::string_view("<=")},
      std::pair{pass_direction::reason_only, std::string_view("reason-only")},
  };
};

// What a filter says of itself, as data: `pallasbench filters` prints every registered filter's,
// and docs/filters.md's table, the record schema and the dataset card are read from it.
struct filter_description {
  std::string name;
  std::string checks;  // one line: what it compares (and any reason it fails whatever the value)
  pass_direction direction = pass_direction::reason_only;
  std::optional<double> threshold;    // the value it compares with; none when reason_only
  std::string threshold_varies_with;  // empty: fixed; else how the task or dtype sets it (threshold: the default)
  [[nodiscard]] std::string passes_when() const;  // "value >= 0.5", for people
  [[nodiscard]] nlohmann::json to_json() const;
};

struct filter_result {
  bool passed = false;
  double value = 0;
  double threshold = 0;
  std::string reason;
  pass_direction direction = pass_direction::reason_only;  // evaluate() sets the filter's own
  [[nodiscard]] nlohmann::json to_json() const;
};

// The output and reference of one evaluation of the kernel.
struct output_pair {
  const npy_array* output;
  const npy_array* reference;
};

// The kernel and reference before and after one input was perturbed within its domain.
struct perturbation {
  std::string input;
  output_pair base;
  output_pair perturbed;
};

// Everything a filter may look at; a filter whose evidence is missing fails and says so.
struct filter_inputs {
  std::vector<output_pair> seeds;
  std::vector<perturbation> perturbations;
  std::size_t input_count = 0;
  const module_analysis* analysis = nullptr;     // of the module the executor deserialized
  std::string source;                            // the candidate file as authored (read by the harness)
  std::vector<std::string> task_modules_loaded;  // task files the tracer saw the candidate import
  tolerance tol;

  // profile_pair of a seed's pair, computed once for all filters.
  [[nodiscard]] const pair_profile& profile(const output_pair& pair) const;
  // The seeds' summary, computed once for these seeds: seed 0's profile, then (float32 seeds of
  // one size) one pass over the outputs and one over the references for the std across seeds and
  // the other seeds' moments; otherwise each seed's profile, and the std across seeds apart.
  [[nodiscard]] const seed_summary& summary() const;

private:
  mutable std::map<std::pair<const npy_array*, const npy_array*>, pair_profile> m_profiles;
  mutable std::optional<seed_summary> m_summary;
  mutable std::vector<output_pair> m_summary_of;  // the seeds it summarises
};

// What a filter throws when the evidence it needs is missing ("no outputs").
class missing_evidence : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// A filter's public face is describe() and evaluate(); each filter implements do_describe() and
// do_evaluate(). evaluate() is the one place where a filter that cannot run (missing_evidence, or
// any other exception) becomes a failed result whose reason is "cannot run: " and what it lacked,
// so no caller can let one pass; every result it returns carries the description's direction.
class robustness_filter {
public:
  virtual ~robustness_filter() = default;
  [[nodiscard]] filter_description describe() const { return do_describe(); }
  [[nodiscard]] std::string name() const { return do_describe().name; }
  [[nodiscard]] filter_result evaluate(const filter_inputs& in) const;

private:
  [[nodiscard]] virtual filter_description do_describe() const = 0;
  [[nodiscard]] virtual filter_result do_evaluate(const filter_inputs& in) const = 0;
};

}  // namespace pallasbench
