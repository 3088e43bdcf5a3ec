// task_info: what describe says of a task, and the task as evaluated at a dtype.
#include "pallasbench/suite/task_info.hpp"

#include <optional>

#include <gtest/gtest.h>

namespace pallasbench {
namespace {

nlohmann::json view(double atol, const std::string& x, const std::string& out, std::optional<std::int64_t> bytes) {
  nlohmann::json v = {{"tolerance", {{"atol", atol}, {"rtol", 2 * atol}, {"rel_norm", 2 * atol}}},
                      {"dtypes", {{"x", x}, {"idx", "int32"}}},
                      {"output_dtype", out}};
  if (bytes) v["bytes"] = {{"small", *bytes}};
  return v;
}

nlohmann::json described() {
  return {{"name", "softmax"},
          {"level", 1},
          {"category", "softmax"},
          {"inputs", {{{"name", "x"}, {"domain", "real"}}, {{"name", "idx"}, {"domain", "discrete"}}}},
          {"shapes", {{"small", {{"x", {256, 256}}, {"idx", {256}}}}}},
          {"tolerance", {{"atol", 1e-5}, {"rtol", 2e-5}, {"rel_norm", 2e-5}}},
          {"dtypes", {{"x", "float32"}, {"idx", "int32"}}},
          {"output_dtype", "float32"},
          {"bytes", {{"small", 524288}}},
          {"views",
           {{"float32", view(1e-5, "float32", "float32", 524288)},
            {"bfloat16", view(1e-2, "bfloat16", "bfloat16", 262144)},
            {"float16", view(1e-3, "float16", "float16", std::nullopt)}}}};
}

TEST(TaskInfo, WeightInputsAreRead) {
  auto j = described();
  j["inputs"][1]["weight"] = true;  // absent on x: not a weight
  const auto task = task_info::from_json(j);
  EXPECT_FALSE(task.inputs[0].weight);
  EXPECT_TRUE(task.inputs[1].weight);
  EXPECT_TRUE(task.at(float_dtype::bfloat16).inputs[1].weight);
}

TEST(TaskInfo, AtADtypeIsItsViewWhole) {
  const auto task = task_info::from_json(described());
  const auto f16 = task.at(float_dtype::float16);
  EXPECT_DOUBLE_EQ(f16.tol.atol, 1e-3);
  EXPECT_DOUBLE_EQ(f16.tol.rel_norm, 2e-3);
  EXPECT_EQ(f16.dtypes.at("x"), "float16");
  EXPECT_EQ(f16.dtypes.at("idx"), "int32");
  EXPECT_EQ(f16.output_dtype, "float16");
  const auto bf16 = task.at(float_dtype::bfloat16);
  EXPECT_DOUBLE_EQ(bf16.tol.rtol, 2e-2);
  EXPECT_EQ(bf16.output_dtype, "bfloat16");
}

TEST(TaskInfo, NothingIsDerivedOnThisSide) {
  // A view that keeps x at uint8 and the output at float32 (a task with no float input, as
  // task/dtypes.py views() derives it) is taken as it is.
  auto j = described();
  j["views"]["bfloat16"] = view(1e-5, "uint8", "float32", 7);
  const auto task = task_info::from_json(j).at(float_dtype::bfloat16);
  EXPECT_EQ(task.output_dtype, "float32");
  EXPECT_EQ(task.dtypes.at("x"), "uint8");
  EXPECT_DOUBLE_EQ(task.tol.atol, 1e-5);
  EXPECT_EQ(*task.bytes_at(problem_size::small), 7);
}

TEST(TaskInfo, BytesAtADtypeAreTheTasksModelThereOrNone) {
  const auto task = task_info::from_json(described());
  EXPECT_EQ(*task.at(float_dtype::bfloat16).bytes_at(problem_size::small), 262144);
  // No model at float16: no byte count (no bandwidth figure, no bytes floor), never float32's.
  EXPECT_FALSE(task.at(float_dtype::float16).bytes_at(problem_size::small));
  EXPECT_EQ(*task.at(float_dtype::float32).bytes_at(problem_size::small), 524288);
}

TEST(TaskInfo, AMissingViewIsAnErrorNamingTheTask) {
  auto j = described();
  j["views"].erase("float16");
  const auto task = task_info::from_json(j);
  try {
    (void)task.at(float_dtype::float16);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("task 'softmax' has no view at float16"), std::string::npos) << e.what();
  }
}

TEST(TaskInfo, BackendsAreDescribedPreferredFirstAndChosenByTheFlag) {
  auto j = described();
  EXPECT_EQ(task_info::from_json(j).backends, std::vector{kernel_backend::triton});  // before the axis: Triton
  j["backends"] = {"mosaic_gpu", "triton"};
  const auto both = task_info::from_json(j);
  EXPECT_EQ(both.implementations(backend_choice::preferred), std::vector{kernel_backend::mosaic_gpu});
  EXPECT_EQ(both.implementations(backend_choice::all),
            (std::vector{kernel_backend::mosaic_gpu, kernel_backend::triton}));
  EXPECT_EQ(both.implementations(backend_choice::triton), std::vector{kernel_backend::triton});
  j["backends"] = {"triton"};
  const auto triton_only = task_info::from_json(j);
  EXPECT_EQ(triton_only.implementations(backend_choice::preferred), std::vector{kernel_backend::triton});
  EXPECT_TRUE(triton_only.implementations(backend_choice::mosaic_gpu).empty());
  j["backends"] = {"cuda_c"};
  EXPECT_THROW((void)task_info::from_json(j), std::invalid_argument);
}

TEST(TaskInfo, AGpuOnlyImplementationIsLeftOutOffTheGpuAndTheNextOneIsPreferred) {
  auto j = described();
  j["backends"] = {"mosaic_gpu", "triton"};
  j["gpu_only_backends"] = {"mosaic_gpu"};
  const auto task = task_info::from_json(j);
  EXPECT_EQ(task.implementations(backend_choice::preferred, true), std::vector{kernel_backend::mosaic_gpu});
  EXPECT_EQ(task.implementations(backend_choice::preferred, false), std::vector{kernel_backend::triton});
  EXPECT_EQ(task.implementations(backend_choice::all, false), std::vector{kernel_backend::triton});
  EXPECT_TRUE(task.implementations(backend_choice::mosaic_gpu, false).empty());
  EXPECT_EQ(task.implementations(backend_choice::mosaic_gpu, true), std::vector{kernel_backend::mosaic_gpu});
}

TEST(Dtype, NamesAndFloat32Mapping) {
  EXPECT_EQ(parse_enum<float_dtype>("bfloat16"), float_dtype::bfloat16);
  EXPECT_EQ(to_string(float_dtype::float16), "float16");
  EXPECT_THROW((void)parse_enum<float_dtype>("float8"), std::invalid_argument);
}

}  // namespace
}  // namespace pallasbench
