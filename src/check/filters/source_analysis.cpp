#include "pallasbench/check/filters/source_analysis.hpp"

#include <cstddef>
#include <regex>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "pallasbench/analyze/module_analysis.hpp"

namespace pallasbench {
namespace {

const std::regex& harness_import_pattern() {
  static const std::regex pattern(
      R"((^|\n)\s*(from|import)\s+(tasks(\.|\s)|pallasbench\.(registry|worker|interpret|tracer|executor|reference)|pallasbench\s+import\s+(registry|worker|interpret|tracer|executor|reference)|)"
      R"(pallasbench\.task(\.registry\b|[ \t]+import[ \t(]+([\w \t,]*[ \t,])?registry\b)))"
      R"(|spec_from_file_location\([^)]*tasks/level|block_until_ready\s*=)");
  return pattern;
}

}  // namespace

filter_description source_analysis_filter::do_describe() const {
  return {"source_analysis",
          fmt::format("the compiled module: the share of the work outside the Pallas kernels; a kernel result "
                      "must reach the output, and a foreign custom call, a dot, gather, scatter, sort or cast "
                      "outside the kernels, addressing by an input's values outside them, more than {:g}% of the "
                      "task's bytes moved outside them (weights aside), a float32 task's kernel below f32, or an "
                      "import of the harness fail it whatever the share",
                      100 * thresholds::max_moved_share),
          pass_direction::at_most, thresholds::max_outside_work, ""};
}

filter_result source_analysis_filter::do_evaluate(const filter_inputs& in) const {
  if (in.analysis == nullptr) throw missing_evidence("no analysis of the kernel's module");
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
    r.reason = fmt::format("{} Pallas kernel call(s); {:.2f}% of the work outside them, {:.2f}% of the task's bytes "
                           "moved outside them",
                           a.pallas_calls, 100 * a.outside_share, 100 * a.moved_share);
  } else {
    r.reason = problems.front();
    for (std::size_t i = 1; i < problems.size(); ++i) r.reason += "; " + problems[i];
  }
  return r;
}

}  // namespace pallasbench
