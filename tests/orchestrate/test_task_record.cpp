#include "pallasbench/orchestrate/task_record.hpp"

#include "pallasbench/core/uuid.hpp"
#include "pallasbench/measure/statistics.hpp"
#include "pallasbench/orchestrate/protocol.hpp"
#include "pallasbench/record/record.hpp"

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
  r.candidate.kind = candidate_kind::suite;
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
  timing_result timing;
  timing.kernel.series = timed_series{summarize(std::vector<double>{10, 12, 11}), true, "converged"};
  timing.reference = timed_side{timed_series{summarize(std::vector<double>{5, 6, 7}), false, "budget spent"}};
  timing.reference_precision = "highest";
  r.timing = timing;
  return r;
}

TEST(TaskRecord, HasCardFieldsAndKernelBookColumns) {
  const auto j = to_record(sample_result());
  for (const char* key :
       {"kernel_name", "level",     "category", "source_original", "source_fixed", "diff",        "jaxpr",
        "stablehlo",   "result",    "uuid",     "entry_point",     "python_code",  "triton_code", "repo_name",
        "module_name", "synthetic", "licenses", "stars",           "sha",          "repo_link",   "schema_version",
        "run_id",      "status",    "size",     "seeds",           "environment",  "compile",     "memory"})
    EXPECT_TRUE(j.contains(key)) << key;
  // Always there, whatever failed: the card's verdict and its filters.
  for (const char* key : {"correctness_passed", "robustness_passed", "filters"})
    EXPECT_TRUE(j["result"].contains(key)) << key;
  EXPECT_EQ(j["repo_link"], "");  // KernelBook's columns as strings, never null
  EXPECT_TRUE(j["sha"].is_string());
}

TEST(TaskRecord, CompileSaysWhetherItHitThePersistentCache) {
  auto r = sample_result();
  EXPECT_FALSE(to_record(r)["compile"].contains("cache"));  // never compiled: nothing to say
  r.compile_cache = protocol::compile_reply::from_json(
                        {{"lower_s", 0.5}, {"compile_s", 0.25}, {"cache", {{"enabled", true}, {"hit", true}}}})
                        .cache;
  auto j = to_record(r);
  EXPECT_EQ(j["compile"]["cache"], (nlohmann::json{{"enabled", true}, {"hit", true}}));
  EXPECT_DOUBLE_EQ(j["compile"]["compile_s"].get<double>(), 0.25);
  // No lookup (the cache off): hit is unknown, left out rather than null (Arrow-stable).
  r.compile_cache = protocol::compile_reply::from_json({{"cache", {{"enabled", false}, {"hit", nullptr}}}}).cache;
  j = to_record(r);
  EXPECT_EQ(j["compile"]["cache"], (nlohmann::json{{"enabled", false}}));
  // Whatever else a reply holds there, the record keeps the two fields with their one type each.
  r.compile_cache =
      protocol::compile_reply::from_json({{"cache", {{"enabled", "yes"}, {"hit", 1}, {"dir", "/x"}}}}).cache;
  EXPECT_EQ(to_record(r)["compile"]["cache"], (nlohmann::json{{"enabled", false}}));
}

TEST(TaskRecord, RobustnessIsFalseUnlessMeasured) {
  auto r = sample_result();
  EXPECT_FALSE(to_record(r)["result"]["robustness_passed"].get<bool>());
  r.robustness_passed = true;
  r.filters = {{"output_range", {{"passed", true}}}};
  const auto j = to_record(r);
  EXPECT_TRUE(j["result"]["robustness_passed"].get<bool>());
  EXPECT_TRUE(j["result"]["filters"]["output_range"]["passed"].get<bool>());
}

TEST(TaskRecord, CarriesMeasuredValues) {
  const auto j = to_record(sample_result());
  EXPECT_EQ(j["status"], "ok");
  EXPECT_DOUBLE_EQ(j["result"]["jit_compile_time_seconds"].get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(j["result"]["wall_time_seconds"].get<double>(), 11e-6);
  EXPECT_EQ(j["timing"]["timer"], "wall");
  EXPECT_DOUBLE_EQ(j["timing"]["reference_median_us"].get<double>(), 6);
  EXPECT_FALSE(j["timing"].contains("speedup"));
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

// A GPU record timed with CUPTI: 100 us kernel, 150 us reference, one sample under 90% clock.
task_result cupti_result() {
  auto r = sample_result();
  r.config.device = device_kind::gpu;
  r.config.size = problem_size::medium;
  r.task.flops["medium"] = 2'000'000'000;  // 2 GFLOP in 100 us: 20 TFLOP/s
  r.task.bytes["medium"] = 100'000'000;    // 100 MB in 100 us: 1000 GB/s
  r.task.uses_tf32 = true;
  r.environment = {
      {"gpu",
       {{"ceilings",
         {{"copy", {{"gbps", 4000.0}}}, {"matmul_tf32", {{"tflops", 400.0}}}, {"matmul_f32", {{"tflops", 50.0}}}}}}}};
  timing_result t;
  t.timer = "cupti";
  t.kernel.series = timed_series{summarize(std::vector<double>(21, 100.0)), true, "converged"};
  t.kernel.wall_us = std::vector<double>(21, 130.0);
  t.kernel.sm_clock_mhz = std::vector<double>(20, 1980.0);
  t.kernel.sm_clock_mhz.push_back(1500.0);
  t.kernel.kernels = {{"_body", {{"count", 21}, {"total_us", 1575.0}}},
                      {"_pack", {{"count", 21}, {"total_us", 525.0}}}};
  t.reference = timed_side{timed_series{summarize(std::vector<double>(21, 150.0)), true, "converged"}};
  t.reference_precision = "default";
  t.l2_flush_bytes = 125'829'120;
  t.sm_clock_max_mhz = 1980.0;
  r.timing = t;
  return r;
}

TEST(TaskRecord, CuptiTimingClaimsSpeedupWithInterval) {
  const auto j = to_record(cupti_result());
  const auto& t = j["timing"];
  EXPECT_EQ(t["timer"], "cupti");
  EXPECT_DOUBLE_EQ(t["speedup"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(t["speedup_ci95"][0].get<double>(), 1.5);  // constant samples: a point interval
  EXPECT_TRUE(t["l2_flush"].get<bool>());
  EXPECT_EQ(t["throttled_samples"], 1);
  EXPECT_EQ(t["sm_clock_mhz"]["start"], 1980.0);
  EXPECT_EQ(t["sm_clock_mhz"]["end"], 1500.0);
  EXPECT_EQ(t["kernels"][0]["name"], "_body");  // largest share first
  EXPECT_DOUBLE_EQ(t["kernels"][0]["share"].get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(j["result"]["wall_time_seconds"].get<double>(), 130e-6);  // host time, not device time
}

TEST(TaskRecord, RooflineAgainstTheRunsCeilings) {
  const auto roofline = to_record(cupti_result())["roofline"];
  EXPECT_NEAR(roofline["tflops"].get<double>(), 20.0, 1e-9);
  EXPECT_NEAR(roofline["gbps"].get<double>(), 1000.0, 1e-9);
  EXPECT_NEAR(roofline["pct_peak_bandwidth"].get<double>(), 25.0, 1e-9);
  EXPECT_NEAR(roofline["pct_peak_flops"].get<double>(), 5.0, 1e-9);  // TF32 task: the TF32 ceiling
  EXPECT_EQ(roofline["flops_ceiling"], "matmul_tf32");
}

TEST(TaskRecord, IntegerWorkIsNotHeldAgainstAFloatCeiling) {
  auto r = cupti_result();
  r.task.integer_ops = true;
  const auto roofline = to_record(r)["roofline"];
  EXPECT_NEAR(roofline["tflops"].get<double>(), 20.0, 1e-9);  // the rate is still reported
  EXPECT_NEAR(roofline["pct_peak_bandwidth"].get<double>(), 25.0, 1e-9);
  EXPECT_FALSE(roofline.contains("pct_peak_flops"));
  EXPECT_FALSE(roofline.contains("flops_ceiling"));
}

TEST(TaskRecord, WallTimingClaimsNoSpeedupOrRoofline) {
  auto r = cupti_result();
  r.timing->timer = "wall";
  const auto j = to_record(r);
  EXPECT_FALSE(j["timing"].contains("speedup"));
  EXPECT_FALSE(j["roofline"].contains("tflops"));
  EXPECT_FALSE(j["roofline"].contains("pct_peak_bandwidth"));
}

TEST(TaskRecord, GpuMemoryIsTheKernelsOwnNotTheProcessPeak) {
  auto r = sample_result();
  r.memory = {{"argument", 100}, {"output", 50}, {"temp", 7}};
  r.peak_bytes = 1 << 30;
  EXPECT_FALSE(to_record(r)["result"].contains("gpu_memory_used_bytes"));  // CPU run
  r.config.device = device_kind::gpu;
  const auto j = to_record(r);
  EXPECT_EQ(j["result"]["gpu_memory_used_bytes"], 157);
  EXPECT_EQ(j["memory"]["process_peak_bytes"], 1 << 30);
}

TEST(TaskRecord, FailureHasNoCorrectnessClaim) {
  auto r = sample_result();
  r.status = task_status::compile_error;
  r.correctness.reset();
  r.timing.reset();
  r.failure = failure_info{failure_phase::load, "syntax error", "", std::nullopt};
  const auto j = to_record(r);
  EXPECT_EQ(j["status"], "compile_error");
  EXPECT_FALSE(j["result"]["correctness_passed"].get<bool>());
  EXPECT_FALSE(j["result"].contains("max_abs_error"));
  EXPECT_EQ(j["error"]["phase"], "load");
  EXPECT_FALSE(j["error"].contains("lowering"));  // no field without a value (docs/record_schema.md)
}

TEST(TaskRecord, ALoweringFailureCarriesItsHelp) {
  auto r = sample_result();
  r.status = task_status::compile_error;
  r.correctness.reset();
  r.timing.reset();
  const auto reply = nlohmann::json{{"backend", "mosaic_gpu"},
                                    {"chosen_by", "plgpu.kernel"},
                                    {"candidate_line", "mine.py:8 in body: x = y"},
                                    {"fixes", {"smaller blocks", 7, "docs"}}};
  r.failure = failure_info{failure_phase::trace, "Mosaic GPU lowering failed: ...", "", lowering_help_from_json(reply)};
  const auto lowering = to_record(r)["error"]["lowering"];
  EXPECT_EQ(lowering["backend"], "mosaic_gpu");
  EXPECT_EQ(lowering["chosen_by"], "plgpu.kernel");
  EXPECT_EQ(lowering["candidate_line"], "mine.py:8 in body: x = y");
  EXPECT_EQ(lowering["fixes"], (nlohmann::json{"smaller blocks", "docs"}));  // a non-string fix is dropped
}

TEST(TaskRecord, LoweringHelpIsReadDefensively) {
  EXPECT_FALSE(lowering_help_from_json(nullptr).has_value());
  EXPECT_FALSE(lowering_help_from_json(nlohmann::json{{"backend", 3}, {"fixes", "not a list"}}).has_value());
  nlohmann::json many = {{"backend", std::string(k_lowering_text_bytes + 10, 'x')}, {"fixes", nlohmann::json::array()}};
  for (int i = 0; i < 20; ++i) many["fixes"].push_back("fix");
  const auto help = lowering_help_from_json(many);
  ASSERT_TRUE(help.has_value());
  EXPECT_EQ(help->backend.size(), k_lowering_text_bytes);
  EXPECT_EQ(help->fixes.size(), k_lowering_fixes);
}

TEST(TaskRecord, ConfigHashIsStableAndSensitive) {
  run_config a{problem_size::small, device_kind::cpu, 3, 300};
  run_config b = a;
  b.size = problem_size::medium;
  EXPECT_EQ(config_hash("relu", "abc", a), config_hash("relu", "abc", a));
  EXPECT_NE(config_hash("relu", "abc", a), config_hash("relu", "abc", b));
  EXPECT_NE(config_hash("relu", "abc", a), config_hash("relu", "abd", a));
  EXPECT_NE(config_hash("relu", "abc", a), config_hash("add", "abc", a));
}

TEST(TaskRecord, TheImplementationIsInTheKeyAndTheLabel) {
  run_config triton{problem_size::small, device_kind::cpu, 3, 300};
  triton.backend = kernel_backend::triton;
  run_config mosaic = triton;
  mosaic.backend = kernel_backend::mosaic_gpu;
  mosaic.dtype = float_dtype::bfloat16;
  EXPECT_NE(config_hash("relu", "abc", triton), config_hash("relu", "abc", mosaic));
  EXPECT_EQ(triton.to_json()["backend"], "triton");
  EXPECT_EQ(triton.label(), "small");
  EXPECT_EQ(mosaic.label(), "small/bfloat16/mosaic_gpu");
  run_config candidate{problem_size::small, device_kind::cpu, 3, 300};  // a candidate: no implementation chosen
  EXPECT_FALSE(candidate.to_json().contains("backend"));
}

TEST(TaskRecord, DtypeIsInTheResumeKeyExceptFloat32sWhichKeepsTheOldKey) {
  run_config f32{problem_size::small, device_kind::cpu, 3, 300};
  run_config bf16 = f32, f16 = f32;
  bf16.dtype = float_dtype::bfloat16;
  f16.dtype = float_dtype::float16;
  EXPECT_FALSE(f32.to_json().contains("dtype"));  // float32 keys are those of records made before --dtype
  EXPECT_EQ(f32.to_json(), (nlohmann::json{{"size", "small"}, {"device", "cpu"}, {"seeds", 3}, {"timeout_s", 300.0}}));
  EXPECT_EQ(bf16.to_json()["dtype"], "bfloat16");
  EXPECT_NE(config_hash("relu", "abc", f32), config_hash("relu", "abc", bf16));
  EXPECT_NE(config_hash("relu", "abc", bf16), config_hash("relu", "abc", f16));
  auto r = sample_result();
  EXPECT_EQ(to_record(r)["dtype"], "float32");
  r.config.dtype = float_dtype::float16;
  EXPECT_EQ(to_record(r)["dtype"], "float16");
  EXPECT_EQ(to_record(r)["config"]["dtype"], "float16");
}

TEST(TaskRecord, ShortTimeoutsLeaveWorkersAMinuteToStart) {
  using std::chrono::milliseconds;
  const auto short_waits = timeouts::from_seconds(5);
  EXPECT_EQ(short_waits.command, milliseconds(5000));
  EXPECT_EQ(short_waits.startup, k_min_startup);  // importing JAX on a loaded machine is no candidate's fault
  const auto long_waits = timeouts::from_seconds(300);
  EXPECT_EQ(long_waits.startup, milliseconds(300000));
  EXPECT_EQ(long_waits.command, milliseconds(300000));
}

TEST(TaskRecord, ShardIsRecordedButIsNoPartOfTheResumeKey) {
  auto r = sample_result();
  const auto unsharded = to_record(r);
  EXPECT_FALSE(unsharded.contains("shard"));  // no field is ever null (docs/record_schema.md)
  r.config.shard = shard_spec(2, 3);
  const auto sharded = to_record(r);
  EXPECT_EQ(sharded["shard"], (nlohmann::json{{"index", 2}, {"count", 3}}));
  // The merged records of all shards must resume the unsharded run.
  EXPECT_EQ(sharded["config_hash"], unsharded["config_hash"]);
  EXPECT_EQ(sharded["config"], unsharded["config"]);
}

TEST(TaskRecord, SuiteKernelRecordsItsShippedConfigurationAtItsSizeAndDtype) {
  auto r = sample_result();
  r.config.backend = kernel_backend::triton;
  r.task.kernel_configs[kernel_backend::triton] = {
      {"gpu", "NVIDIA H200"},
      {"source", "bench/results/x"},
      {"values",
       {{"small",
         {{"float32", {{{"key", "bq"}, {"value", "32"}}}}, {"bfloat16", {{{"key", "bq"}, {"value", "64"}}}}}}}}};
  const auto f32 = to_record(r);
  EXPECT_EQ(f32["kernel_config"]["gpu"], "NVIDIA H200");
  EXPECT_EQ(f32["kernel_config"]["values"], nlohmann::json::parse(R"([{"key": "bq", "value": "32"}])"));
  r.config.dtype = float_dtype::bfloat16;
  EXPECT_EQ(to_record(r)["kernel_config"]["values"][0]["value"], "64");
  r.config.dtype = float_dtype::float16;  // no entry: the heuristic, said as an empty list
  EXPECT_EQ(to_record(r)["kernel_config"]["values"], nlohmann::json::array());
  // Another implementation of the task has its own table: the Triton one says nothing of it.
  r.config.backend = kernel_backend::mosaic_gpu;
  EXPECT_FALSE(to_record(r).contains("kernel_config"));
  r.task.kernel_configs[kernel_backend::mosaic_gpu] = {
      {"gpu", "NVIDIA H200"},
      {"source", "s"},
      {"values", {{"small", {{"float16", {{{"key", "bk"}, {"value", "8"}}}}}}}}};
  EXPECT_EQ(to_record(r)["kernel_config"]["values"][0]["key"], "bk");
}

TEST(TaskRecord, NoConfigurationIsClaimedForAUserCandidateOrAnUntunedTask) {
  auto r = sample_result();
  EXPECT_FALSE(to_record(r).contains("kernel_config"));  // the task ships no table
  r.task.kernel_configs[kernel_backend::triton] = {
      {"gpu", "NVIDIA H200"}, {"source", "s"}, {"values", nlohmann::json::object()}};
  r.candidate.kind = candidate_kind::user;  // the suite's table says nothing of a user's kernel
  EXPECT_FALSE(to_record(r).contains("kernel_config"));
}

}  // namespace
}  // namespace pallasbench
