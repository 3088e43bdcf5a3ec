#include "pallasbench/filters.hpp"

#include <gtest/gtest.h>

#include "npy_writer.hpp"

namespace pallasbench {
namespace {

using nlohmann::json;
using testing::temp_dir;

class Filters : public ::testing::Test {
protected:
  // Keeps every array it makes alive for the test.
  const npy_array* array(std::vector<std::int64_t> shape, const std::vector<float>& values) {
    const auto path = testing::write_f32(m_dir, "a" + std::to_string(m_arrays.size()) + ".npy", shape, values);
    m_arrays.push_back(std::make_unique<npy_array>(npy_array::open(path)));
    return m_arrays.back().get();
  }
  const npy_array* vec(const std::vector<float>& values) { return array({(std::int64_t)values.size()}, values); }

  temp_dir m_dir;
  std::vector<std::unique_ptr<npy_array>> m_arrays;
};

TEST_F(Filters, RangeCatchesCollapsedOutput) {
  filter_inputs in;
  in.seeds = {{vec({0.5f, 0.5f, 0.5f, 0.51f}), vec({0, 1, 0.2f, 0.9f})}};
  const auto r = output_range_filter().evaluate(in);
  EXPECT_FALSE(r.passed);
  EXPECT_NEAR(r.value, 0.01, 1e-6);
  in.seeds = {{vec({0, 1, 0.2f, 0.9f}), vec({0, 1, 0.2f, 0.9f})}};
  EXPECT_TRUE(output_range_filter().evaluate(in).passed);
}

TEST_F(Filters, RangeAcceptsConstantReferenceAndRefusesNonFinite) {
  filter_inputs in;
  in.seeds = {{vec({2, 2}), vec({2, 2})}};
  const auto constant = output_range_filter().evaluate(in);
  EXPECT_TRUE(constant.passed);
  EXPECT_NE(constant.reason.find("constant"), std::string::npos);
  in.seeds = {{vec({std::nanf(""), 2}), vec({1, 2})}};
  EXPECT_FALSE(output_range_filter().evaluate(in).passed);
}

TEST_F(Filters, StdCatchesOutputThatIgnoresTheSeed) {
  // Each seed's output has the right spread, but it is the same output for every seed.
  const auto* same = vec({0, 1, 2, 3});
  filter_inputs in;
  in.seeds = {{same, vec({0, 1, 2, 3})}, {same, vec({3, 2, 1, 0})}, {same, vec({1, 3, 0, 2})}};
  const auto r = output_std_filter().evaluate(in);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.reason.find("across seeds"), std::string::npos) << r.reason;
  in.seeds = {{vec({0, 1, 2, 3}), vec({0, 1, 2, 3})}, {vec({3, 2, 1, 0}), vec({3, 2, 1, 0})}};
  EXPECT_TRUE(output_std_filter().evaluate(in).passed);
}

TEST_F(Filters, AxesVariationSparesSparseOutputs) {
  // one_hot: most columns are constant in the reference; only slices that vary there count.
  const std::vector<float> one_hot{1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0};
  filter_inputs in;
  in.seeds = {{array({3, 4}, one_hot), array({3, 4}, one_hot)}};
  EXPECT_TRUE(axes_variation_filter().evaluate(in).passed);
}

TEST_F(Filters, AxesVariationCatchesRowsFilledWithOneValue) {
  // Reference rows vary along axis 1; the output repeats each row's first value.
  filter_inputs in;
  in.seeds = {{array({2, 3}, {1, 1, 1, 5, 5, 5}), array({2, 3}, {1, 1.001f, 1.002f, 5, 5.004f, 5.001f})}};
  const auto r = axes_variation_filter().evaluate(in);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.reason.find("axis 1"), std::string::npos) << r.reason;
}

TEST_F(Filters, InputImpactCatchesAnIgnoredInput) {
  const auto* out = vec({1, 2, 3});
  const auto* ref = vec({1, 2, 3});
  filter_inputs in;
  in.input_count = 2;
  in.perturbations = {{"x", {out, ref}, {vec({1.1f, 2.1f, 3.1f}), vec({1.1f, 2.1f, 3.1f})}},
                      {"bias", {out, ref}, {out, vec({1.01f, 2.01f, 3.01f})}}};  // output ignores bias
  const auto r = input_impact_filter().evaluate(in);
  EXPECT_FALSE(r.passed);
  EXPECT_NEAR(r.value, 1.0, 1e-3);
  EXPECT_NE(r.reason.find("input bias"), std::string::npos) << r.reason;
}

TEST_F(Filters, InputImpactNeedsEveryInput) {
  const auto* a = vec({1, 2});
  filter_inputs in;
  in.input_count = 2;
  in.perturbations = {{"x", {a, a}, {vec({2, 3}), vec({2, 3})}}};
  const auto r = input_impact_filter().evaluate(in);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.reason.find("cannot run: 1 of 2 inputs"), std::string::npos) << r.reason;
  in.input_count = 1;
  EXPECT_TRUE(input_impact_filter().evaluate(in).passed);
}

json eqn(const std::string& primitive, bool inside, std::vector<std::int64_t> out_shape, double multiplier = 1,
         double contracted = 1) {
  return {{"primitive", primitive}, {"inside_pallas", inside}, {"multiplier", multiplier},
          {"inputs", json::array({{{"shape", out_shape}, {"dtype", "float32"}}})},
          {"outputs", json::array({{{"shape", out_shape}, {"dtype", "float32"}}})},
          {"contracted", contracted}};
}

filter_inputs graph(std::vector<json> eqns, double flops = 1024 * 1024) {
  filter_inputs in;
  in.jaxpr_graph = eqns;
  in.task_flops = flops;
  in.source = "def kernel(x): ...";
  return in;
}

TEST(SourceAnalysis, HonestKernelWithLayoutPasses) {
  const auto in = graph({eqn("pad", false, {1024, 1024}), eqn("pallas_call", false, {1024, 1024}),
                         eqn("max", true, {8, 1024}, 128), eqn("slice", false, {1000, 1000})});
  const auto r = source_analysis_filter().evaluate(in);
  EXPECT_TRUE(r.passed) << r.reason;
  EXPECT_NE(r.reason.find("100.0% of the counted work inside"), std::string::npos) << r.reason;
}

TEST(SourceAnalysis, XlaWorkAroundATokenKernelFails) {
  const auto r = source_analysis_filter().evaluate(graph(
      {eqn("dot_general", false, {1024, 1024}, 1, 1024), eqn("pallas_call", false, {1024, 1024}),
       eqn("swap", true, {1024, 1024})},
      2.0 * 1024 * 1024 * 1024));
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.reason.find("'dot_general' outside pallas_call"), std::string::npos) << r.reason;
}

TEST(SourceAnalysis, HalfTheWorkOutsideFails) {
  const auto r = source_analysis_filter().evaluate(
      graph({eqn("pallas_call", false, {512, 1024}), eqn("max", true, {512, 1024}), eqn("max", false, {512, 1024})}));
  EXPECT_FALSE(r.passed);
  EXPECT_NEAR(r.value, 0.5, 1e-9);
}

TEST(SourceAnalysis, NoPallasCallOrCallbacksFail) {
  EXPECT_FALSE(source_analysis_filter().evaluate(graph({eqn("max", false, {4})})).passed);
  const auto r = source_analysis_filter().evaluate(
      graph({eqn("pallas_call", false, {4}), eqn("pure_callback", false, {1024, 1024})}));
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.reason.find("host callback"), std::string::npos);
}

TEST(SourceAnalysis, ScalarSetupIsAllowed) {
  const auto r = source_analysis_filter().evaluate(
      graph({eqn("rsqrt", false, {}), eqn("pallas_call", false, {1024, 1024}), eqn("exp", true, {1024, 1024})}));
  EXPECT_TRUE(r.passed) << r.reason;
}

TEST(SourceAnalysis, ImportingTheHarnessFails) {
  auto in = graph({eqn("pallas_call", false, {4}), eqn("exp", true, {4})});
  in.source = "import numpy as np\nfrom pallasbench import registry\n";
  EXPECT_FALSE(source_analysis_filter().evaluate(in).passed);
  in.source = "import importlib.util\nspec = importlib.util.spec_from_file_location('r', 'tasks/level1/relu.py')\n";
  EXPECT_FALSE(source_analysis_filter().evaluate(in).passed);
  in.source = "from pallasbench import tasklib as tl\n";
  EXPECT_TRUE(source_analysis_filter().evaluate(in).passed);
}

TEST(SourceAnalysis, CastsOutsideAreAPrecisionDowngrade) {
  const auto r = source_analysis_filter().evaluate(graph({eqn("convert_element_type", false, {1024, 1024}),
                                                          eqn("pallas_call", false, {1024, 1024}),
                                                          eqn("dot_general", true, {64, 64}, 256, 1024)},
                                                         2.0 * 1024 * 1024 * 1024));
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.reason.find("'convert_element_type' outside pallas_call"), std::string::npos) << r.reason;
}

TEST(SourceAnalysis, TaskFileLoadedByTheCandidateFails) {
  auto in = graph({eqn("pallas_call", false, {4}), eqn("exp", true, {4})});
  in.task_modules_loaded = {"tasks/level1/layernorm.py"};
  const auto r = source_analysis_filter().evaluate(in);
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.reason.find("tasks/level1/layernorm.py"), std::string::npos) << r.reason;
}

TEST(RunFilters, MissingEvidenceFailsEveryFilterWithReason) {
  bool all = true;
  const auto out = run_filters(default_filters(), filter_inputs{}, all);
  EXPECT_FALSE(all);
  ASSERT_EQ(out.size(), 5u);
  for (const auto& [name, result] : out.items()) {
    EXPECT_FALSE(result["passed"].get<bool>()) << name;
    EXPECT_NE(result["reason"].get<std::string>().find("cannot run"), std::string::npos) << name;
  }
}

}  // namespace
}  // namespace pallasbench
