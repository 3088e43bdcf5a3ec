#include "pallasbench/record.hpp"

#include <regex>

#include <gtest/gtest.h>

namespace pallasbench {
namespace {

task_info relu_task() {
  task_info t;
  t.name = "relu";
  t.level = 1;
  t.category = "activation";
  t.inputs = {{"x", "real"}};
  t.shapes["small"]["x"] = {512, 512};
  t.tol = {1e-5, 1e-5, 1e-5};
  t.flops["small"] = 262144;
  t.bytes["small"] = 2097152;
  return t;
}

task_result sample_result() {
  task_result r;
  r.run_id = "20261129T000000Z";
  r.uuid = make_uuid();
  r.task = relu_task();
  r.candidate.kind = "suite";
  r.candidate.path = "tasks/level1/relu.py";
  r.candidate.sha256 = "abc123";
  r.candidate.source = "def kernel(x): ...";
  r.candidate.bundled_source = "def kernel(x): ...\n# ---- pallasbench.kernels.tiled_matmul ----\n...";
  r.candidate.reference_source = "def reference(x): ...";
  r.status = task_status::ok;
  r.seeds = {0, 1, 2};
  r.lower_s = 0.5;
  r.compile_s = 0.25;
  r.pallas_calls = {{{"grid", {64, 1}}, {"block_shapes", {{8, 512}, {8, 512}}}}};
  r.correctness = correctness_report{};
  r.timing = wall_timing{timed_series{summarize(std::vector<double>{10, 12, 11}), true, "converged"},
                         timed_series{summarize(std::vector<double>{5, 6, 7}), false, "budget spent"}, "highest"};
  return r;
}

TEST(Record, HasCardFieldsAndKernelBookColumns) {
  const auto j = to_record(sample_result());
  for (const char* key : {"kernel_name", "level", "category", "source_original", "source_fixed", "diff", "jaxpr",
                          "stablehlo", "result", "uuid", "entry_point", "python_code", "triton_code", "repo_name",
                          "module_name", "synthetic", "licenses", "stars", "sha", "repo_link", "schema_version",
                          "run_id", "status", "error", "size", "seeds", "environment", "timing", "compile", "memory"})
    EXPECT_TRUE(j.contains(key)) << key;
  for (const char* key : {"correctness_passed", "robustness_passed", "max_abs_error", "max_rel_error",
                          "wall_time_seconds", "jit_compile_time_seconds", "filters", "block_shape", "grid_shape",
                          "gpu_memory_used_bytes"})
    EXPECT_TRUE(j["result"].contains(key)) << key;
}

TEST(Record, RobustnessIsFalseUnlessMeasured) {
  auto r = sample_result();
  EXPECT_FALSE(to_record(r)["result"]["robustness_passed"].get<bool>());
  r.robustness_passed = true;
  r.filters = {{"output_range", {{"passed", true}}}};
  const auto j = to_record(r);
  EXPECT_TRUE(j["result"]["robustness_passed"].get<bool>());
  EXPECT_TRUE(j["result"]["filters"]["output_range"]["passed"].get<bool>());
}

TEST(Record, CarriesMeasuredValues) {
  const auto j = to_record(sample_result());
  EXPECT_EQ(j["status"], "ok");
  EXPECT_DOUBLE_EQ(j["result"]["jit_compile_time_seconds"].get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(j["result"]["wall_time_seconds"].get<double>(), 11e-6);
  EXPECT_EQ(j["timing"]["timer"], "wall");
  EXPECT_DOUBLE_EQ(j["timing"]["reference_median_us"].get<double>(), 6);
  EXPECT_TRUE(j["timing"]["speedup"].is_null());
  EXPECT_TRUE(j["timing"]["converged"].get<bool>());
  EXPECT_FALSE(j["timing"]["reference"]["converged"].get<bool>());
  EXPECT_EQ(j["timing"]["ci95_us"], nlohmann::json({10, 12}));
  EXPECT_EQ(j["result"]["grid_shape"], nlohmann::json({64, 1}));
  EXPECT_EQ(j["seeds"], nlohmann::json({0, 1, 2}));
  EXPECT_EQ(j["inputs"][0]["shape"], nlohmann::json({512, 512}));
  EXPECT_EQ(j["module_name"], "tasks.level1.relu");
  EXPECT_EQ(j["source_original"], "def kernel(x): ...");
  EXPECT_NE(j["triton_code"].get<std::string>().find("pallasbench.kernels.tiled_matmul"), std::string::npos);
  EXPECT_EQ(j["python_code"], "def reference(x): ...");
}

TEST(Record, GpuMemoryIsTheKernelsOwnNotTheProcessPeak) {
  auto r = sample_result();
  r.memory = {{"argument", 100}, {"output", 50}, {"temp", 7}};
  r.peak_bytes = 1 << 30;
  EXPECT_TRUE(to_record(r)["result"]["gpu_memory_used_bytes"].is_null());  // CPU run
  r.config.device = "gpu";
  const auto j = to_record(r);
  EXPECT_EQ(j["result"]["gpu_memory_used_bytes"], 157);
  EXPECT_EQ(j["memory"]["process_peak_bytes"], 1 << 30);
}

TEST(Record, FailureHasNoCorrectnessClaim) {
  auto r = sample_result();
  r.status = task_status::compile_error;
  r.correctness.reset();
  r.timing.reset();
  r.failure = failure_info{"load", "syntax error", ""};
  const auto j = to_record(r);
  EXPECT_EQ(j["status"], "compile_error");
  EXPECT_FALSE(j["result"]["correctness_passed"].get<bool>());
  EXPECT_TRUE(j["result"]["max_abs_error"].is_null());
  EXPECT_EQ(j["error"]["phase"], "load");
}

TEST(Record, ConfigHashIsStableAndSensitive) {
  run_config a{"small", "cpu", 3, 300};
  run_config b = a;
  b.size = "medium";
  EXPECT_EQ(config_hash("relu", "abc", a), config_hash("relu", "abc", a));
  EXPECT_NE(config_hash("relu", "abc", a), config_hash("relu", "abc", b));
  EXPECT_NE(config_hash("relu", "abc", a), config_hash("relu", "abd", a));
  EXPECT_NE(config_hash("relu", "abc", a), config_hash("add", "abc", a));
}

TEST(Record, UuidIsVersion4) {
  const std::regex v4("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
  const auto a = make_uuid();
  EXPECT_TRUE(std::regex_match(a, v4)) << a;
  EXPECT_NE(a, make_uuid());
}

}  // namespace
}  // namespace pallasbench
