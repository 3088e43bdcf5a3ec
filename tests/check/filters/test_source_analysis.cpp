#include "pallasbench/check/filters/source_analysis.hpp"

#include <gtest/gtest.h>

#include <string>

#include "pallasbench/analyze/module_analysis.hpp"

namespace pallasbench {
namespace {

// The filter over an analysis (module_analysis's own rules are tested in test_module_analysis).
module_analysis clean_analysis() {
  module_analysis a;
  a.pallas_calls = 2;
  a.output_from_kernel = true;
  a.outside_share = 0.002;
  a.moved_share = 0.118;
  return a;
}

filter_inputs over(const module_analysis& a) {
  filter_inputs in;
  in.analysis = &a;
  in.source = "def kernel(x): ...";
  return in;
}

TEST(SourceAnalysis, CleanModulePassesAndSaysItsShare) {
  const auto a = clean_analysis();
  const auto r = source_analysis_filter().evaluate(over(a));
  EXPECT_TRUE(r.passed) << r.reason;
  EXPECT_DOUBLE_EQ(r.value, 0.002);
  EXPECT_NE(r.reason.find("2 Pallas kernel call(s); 0.20% of the work outside them, 11.80% of the task's bytes moved"),
            std::string::npos)
      << r.reason;
}

TEST(SourceAnalysis, ValueAndThresholdAreTheSharesOfTheAnalysis) {
  auto a = clean_analysis();
  a.outside_share = 0.5;
  a.problems = {"50.0% of the work outside the Pallas kernels"};
  const auto r = source_analysis_filter().evaluate(over(a));
  EXPECT_FALSE(r.passed);
  EXPECT_DOUBLE_EQ(r.value, 0.5);
  EXPECT_DOUBLE_EQ(r.threshold, thresholds::max_outside_work);
}

TEST(SourceAnalysis, EveryProblemOfTheAnalysisIsAReason) {
  auto a = clean_analysis();
  a.problems = {"no Pallas kernel result reaches the output", "kernel 'k': arith.truncf f32 -> bf16"};
  const auto r = source_analysis_filter().evaluate(over(a));
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.reason, "no Pallas kernel result reaches the output; kernel 'k': arith.truncf f32 -> bf16");
}

TEST(SourceAnalysis, WithoutAnAnalysisItFails) {
  filter_inputs in;
  const auto r = source_analysis_filter().evaluate(in);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.reason.find("no analysis"), std::string::npos) << r.reason;
}

TEST(SourceAnalysis, ImportingTheHarnessFails) {
  const auto a = clean_analysis();
  auto in = over(a);
  in.source = "import numpy as np\nfrom pallasbench import registry\n";
  EXPECT_FALSE(source_analysis_filter().evaluate(in).passed);
  in.source = "from pallasbench import executor\n";
  EXPECT_FALSE(source_analysis_filter().evaluate(in).passed);
  in.source = "import importlib.util\nspec = importlib.util.spec_from_file_location('r', 'tasks/level1/relu.py')\n";
  EXPECT_FALSE(source_analysis_filter().evaluate(in).passed);
  for (const char* registry : {"from pallasbench.task import registry\n", "import pallasbench.task.registry\n",
                               "from pallasbench.task.registry import load\n",
                               "from pallasbench.task import stress, registry\n"}) {
    in.source = registry;
    EXPECT_FALSE(source_analysis_filter().evaluate(in).passed) << registry;
  }
  // The task vocabulary and the shared kernel families are what candidates build on.
  in.source = "from pallasbench import task as tl\nfrom pallasbench.kernels import masked\n";
  EXPECT_TRUE(source_analysis_filter().evaluate(in).passed);
  in.source = "from pallasbench.task import stress\n";
  EXPECT_TRUE(source_analysis_filter().evaluate(in).passed);
}

TEST(SourceAnalysis, TaskFileLoadedByTheCandidateFails) {
  const auto a = clean_analysis();
  auto in = over(a);
  in.task_modules_loaded = {"tasks/level1/layernorm.py"};
  const auto r = source_analysis_filter().evaluate(in);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.reason.find("tasks/level1/layernorm.py"), std::string::npos) << r.reason;
}

}  // namespace
}  // namespace pallasbench
