#include "pallasbench/measure/timing_checks.hpp"

#include <gtest/gtest.h>

namespace pallasbench {
namespace {

using nlohmann::json;

const launch_geometry k_relu_geometry{{256, 1, 1}, 256};

std::vector<module_kernel> relu_module() { return {{"_relu_body", k_relu_geometry}}; }

TEST(ModuleKernels, ReadFromTheLoadReply) {
  const json kernels = json::parse(R"([
    {"target": "__gpu$xla.gpu.triton", "name": "_relu_body", "grid_x": 256, "grid_y": 1, "grid_z": 1,
     "num_warps": 8, "ir": "..."},
    {"target": "mosaic_gpu", "name": null, "ir": null, "error": "not decoded"}])");
  const auto found = module_kernel::from_load_reply(kernels);
  ASSERT_EQ(found.size(), 1u);  // an undecoded kernel identifies nothing
  EXPECT_EQ(found[0].name, "_relu_body");
  ASSERT_TRUE(found[0].geometry);
  EXPECT_EQ(*found[0].geometry, k_relu_geometry);
}

TEST(ModuleKernels, AMosaicModuleIsKnownByTheNamesItLaunches) {
  // mlp_block at bfloat16 (H200, 2026-12-04): Mosaic GPU kernels only, launched as
  // "<function>_kernel"; matched by the module's name alone, every sample was rejected.
  const json kernels = json::parse(R"([
    {"target": "mosaic_gpu_v2", "name": "mlp_block_up", "ir": "...",
     "launches": [{"name": "mlp_block_up_mosaic_gpu_kernel"}]}])");
  const auto found = module_kernel::from_load_reply(kernels);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_FALSE(found[1].geometry);  // no constant grid read: matched by name only
  const std::vector<std::vector<kernel_launch>> samples{{{"mlp_block_up_mosaic_gpu_kernel", {{132, 1, 1}, 384}}}};
  const auto check = check_launches(found, samples);
  EXPECT_TRUE(check.passed) << check.reason;
  EXPECT_EQ(check.by_name, 1u);
  EXPECT_FALSE(check_launches(found, {{{{"wrapped_convert", {{132, 1, 1}, 384}}}}}).passed);
}

TEST(ModuleKernels, AMosaicLaunchNamedStaleIsMatchedByItsGridAndBlock) {
  // fused_softmax_cross_entropy's Mosaic kernel (H100, 2026-12-06): CUPTI named its launches
  // after reduce_sum's kernel, run earlier in the same executor; its grid and block still match.
  const json kernels = json::parse(R"([
    {"target": "mosaic_gpu_v2", "name": "fused_softmax_cross_entropy", "ir": "...",
     "launches": [{"name": "fused_softmax_cross_entropy_mosaic_gpu_kernel",
                   "grid_x": 512, "grid_y": 1, "grid_z": 1, "block_threads": 128}]}])");
  const auto found = module_kernel::from_load_reply(kernels);
  ASSERT_EQ(found.size(), 2u);
  ASSERT_TRUE(found[1].geometry);
  EXPECT_EQ(*found[1].geometry, (launch_geometry{{512, 1, 1}, 128}));
  const auto stale = check_launches(found, {{{{"reduce_sum_mosaic_gpu_kernel", {{512, 1, 1}, 128}}}}});
  EXPECT_TRUE(stale.passed) << stale.reason;
  EXPECT_EQ(stale.by_geometry, 1u);
  // another shape under a stale name is still no launch of this module
  EXPECT_FALSE(check_launches(found, {{{{"reduce_sum_mosaic_gpu_kernel", {{512, 1, 1}, 256}}}}}).passed);
}

TEST(LaunchCheck, EverySampleLaunchingAModuleKernelPasses) {
  const std::vector<std::vector<kernel_launch>> samples{{{"_relu_body", k_relu_geometry}},
                                                        {{"_relu_body", k_relu_geometry}}};
  const auto check = check_launches(relu_module(), samples);
  EXPECT_TRUE(check.applicable);
  EXPECT_TRUE(check.passed) << check.reason;
  EXPECT_EQ(check.by_name, 2u);
}

TEST(LaunchCheck, AStaleNameStillMatchesByGeometry) {
  // CUPTI named matmul's pack kernel after the kernel loaded there before (H200, 2026-12-01).
  const std::vector<std::vector<kernel_launch>> samples{{{"_layernorm_rows", k_relu_geometry}}};
  const auto check = check_launches(relu_module(), samples);
  EXPECT_TRUE(check.passed);
  EXPECT_EQ(check.by_geometry, 1u);
}

TEST(LaunchCheck, ASampleWithoutAModuleKernelFails) {
  const std::vector<std::vector<kernel_launch>> samples{
      {{"_relu_body", k_relu_geometry}}, {{"copy_fusion", {{64, 1, 1}, 128}}}, {}};
  const auto check = check_launches(relu_module(), samples);
  EXPECT_FALSE(check.passed);
  EXPECT_EQ(check.without, 2u);
  EXPECT_NE(check.reason.find("2 of 3 timed samples"), std::string::npos) << check.reason;
}

TEST(LaunchCheck, AModuleWithoutIdentifiableKernelsFails) {
  const std::vector<std::vector<kernel_launch>> samples{{{"anything", k_relu_geometry}}};
  const auto check = check_launches({}, samples);
  EXPECT_FALSE(check.passed);
  EXPECT_NE(check.reason.find("cannot be identified"), std::string::npos);
}

TEST(LaunchCheck, NoSamplesIsNoPass) { EXPECT_FALSE(check_launches(relu_module(), {}).passed); }

TEST(LaunchCheck, NotVisibleIsNotApplicableAndSaysWhy) {
  const auto j = launches_not_visible("wall clock").to_json();
  EXPECT_EQ(j["applicable"], false);
  EXPECT_TRUE(j["passed"].is_null());
  EXPECT_EQ(j["reason"], "wall clock");
}

json h200_like() {
  return json::parse(R"({"copy": {"gbps": 4000.0}, "matmul_f32": {"tflops": 50.0},
                         "matmul_tf32": {"tflops": 400.0}, "matmul_bf16": {"tflops": 700.0}})");
}

TEST(Ceilings, PeakIsTheFastestMeasuredMatmul) {
  const auto c = device_ceilings::from_json(h200_like(), 50'000'000, "measured this run");
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(c->copy_gbps, 4000.0);
  EXPECT_DOUBLE_EQ(c->peak_tflops, 700.0);
  EXPECT_EQ(c->peak_name, "matmul_bf16");
  EXPECT_EQ(c->l2_bytes, 50'000'000);
}

TEST(Ceilings, NoBandwidthNoCeilings) {
  EXPECT_FALSE(device_ceilings::from_json(json::parse(R"({"matmul_f32": {"tflops": 1}})"), nullptr, "x"));
  EXPECT_FALSE(device_ceilings::from_json(nullptr, nullptr, "x"));
}

TEST(Floor, BytesBoundWithTheOutputsL2ShareAbsorbed) {
  const auto c = *device_ceilings::from_json(h200_like(), 50'000'000, "test");
  // relu at MEDIUM: 64 MiB in, 64 MiB out; up to the L2's 50 MB of the writes may stay in L2.
  const work_model relu{2.0 * 67'108'864, 67'108'864, 16'777'216, false};
  const std::vector<double> kernel{31.5, 31.7}, reference{30.2};
  const auto floor = check_floor(relu, c, kernel, reference);
  EXPECT_EQ(floor.bound, "bytes");
  EXPECT_NEAR(floor.bytes_floor_us, (2.0 * 67'108'864 - 50'000'000) / 4e6, 1e-9);
  EXPECT_NEAR(floor.floor_us, 0.9 * floor.bytes_floor_us, 1e-9);
  EXPECT_TRUE(floor.passed);
  EXPECT_EQ(floor.reference_below, 0u);
}

TEST(Floor, ASampleUnderTheFloorFails) {
  const auto c = *device_ceilings::from_json(h200_like(), 50'000'000, "test");
  const work_model relu{2.0 * 67'108'864, 67'108'864, 16'777'216, false};
  const std::vector<double> kernel{31.5, 3.1, 31.6};
  const auto floor = check_floor(relu, c, kernel, {});
  EXPECT_FALSE(floor.passed);
  EXPECT_EQ(floor.below, 1u);
  EXPECT_DOUBLE_EQ(floor.fastest_us, 3.1);
  EXPECT_NE(floor.reason.find("faster than the hardware allows"), std::string::npos) << floor.reason;
  EXPECT_EQ(floor.to_json()["samples_below"], 1);
}

TEST(Floor, FlopsBoundForMatmulAndNoneForIntegerWork) {
  const auto c = *device_ceilings::from_json(h200_like(), 50'000'000, "test");
  const double flops = 2.0 * 4096 * 4096 * 4096;
  const work_model matmul{3.0 * 4096 * 4096 * 4, 4096.0 * 4096 * 4, flops, false};
  const auto floor = check_floor(matmul, c, std::vector<double>{400.0}, {});
  EXPECT_EQ(floor.bound, "flops");
  EXPECT_NEAR(floor.flops_floor_us, flops / 700e6, 1e-6);
  const work_model counts{1e6, 1e3, 1e12, true};
  EXPECT_DOUBLE_EQ(check_floor(counts, c, std::vector<double>{1.0}, {}).flops_floor_us, 0.0);
}

TEST(Floor, XlaUnderTheFloorIsCounted) {
  // A floor the XLA baseline beats is too high: the record shows it.
  const auto c = *device_ceilings::from_json(h200_like(), 0, "test");
  const work_model w{4e6, 0, 0, false};  // 1 us at 4000 GB/s
  const auto floor = check_floor(w, c, std::vector<double>{2.0}, std::vector<double>{0.5, 2.0});
  EXPECT_EQ(floor.reference_below, 1u);
  EXPECT_TRUE(floor.passed);
}

TEST(Floor, NotAppliedSaysWhy) {
  const auto j = floor_not_applied("no ceilings").to_json();
  EXPECT_EQ(j["applied"], false);
  EXPECT_TRUE(j["passed"].is_null());
  EXPECT_EQ(j["reason"], "no ceilings");
}

}  // namespace
}  // namespace pallasbench
