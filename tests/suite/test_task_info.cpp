// task_info: what describe says of a task, and the task as evaluated at a dtype.
#include "pallasbench/suite/task_info.hpp"

#include <gtest/gtest.h>

namespace pallasbench {
namespace {

nlohmann::json described() {
  return {{"name", "softmax"},
          {"level", 1},
          {"category", "softmax"},
          {"inputs", {{{"name", "x"}, {"domain", "real"}}, {{"name", "idx"}, {"domain", "discrete"}}}},
          {"shapes", {{"small", {{"x", {256, 256}}, {"idx", {256}}}}}},
          {"tolerance", {{"atol", 1e-5}, {"rtol", 1e-5}, {"rel_norm", 1e-5}}},
          {"tolerances",
           {{"float32", {{"atol", 1e-5}, {"rtol", 1e-5}, {"rel_norm", 1e-5}}},
            {"bfloat16", {{"atol", 1e-2}, {"rtol", 1e-2}, {"rel_norm", 1e-2}}},
            {"float16", {{"atol", 1e-3}, {"rtol", 2e-3}, {"rel_norm", 2e-3}}}}},
          {"dtypes", {{"x", "float32"}, {"idx", "int32"}}},
          {"output_dtype", "float32"},
          {"bytes", {{"small", 524288}}},
          {"bytes_by_dtype", {{"bfloat16", {{"small", 262144}}}}}};
}

TEST(TaskInfo, AtADtypeTakesItsToleranceAndItsFloatTypes) {
  const auto task = task_info::from_json(described());
  const auto f16 = task.at(float_dtype::float16);
  EXPECT_DOUBLE_EQ(f16.tol.atol, 1e-3);
  EXPECT_DOUBLE_EQ(f16.tol.rel_norm, 2e-3);
  EXPECT_EQ(f16.dtypes.at("x"), "float16");
  EXPECT_EQ(f16.dtypes.at("idx"), "int32");  // integer inputs keep their types
  EXPECT_EQ(f16.output_dtype, "float16");
  const auto bf16 = task.at(float_dtype::bfloat16);
  EXPECT_DOUBLE_EQ(bf16.tol.rtol, 1e-2);
  EXPECT_EQ(bf16.output_dtype, "bfloat16");
}

TEST(TaskInfo, WithoutFloatInputsTheOutputKeepsItsType) {
  auto j = described();
  j["dtypes"]["x"] = "uint8";
  const auto task = task_info::from_json(j).at(float_dtype::bfloat16);
  EXPECT_EQ(task.output_dtype, "float32");
  EXPECT_EQ(task.dtypes.at("x"), "uint8");
}

TEST(TaskInfo, BytesAtADtypeAreTheTasksModelThereOrNone) {
  const auto task = task_info::from_json(described());
  EXPECT_EQ(*task.at(float_dtype::bfloat16).bytes_at(problem_size::small), 262144);
  // No model at float16: no byte count (no bandwidth figure, no bytes floor), never float32's.
  EXPECT_FALSE(task.at(float_dtype::float16).bytes_at(problem_size::small));
  EXPECT_EQ(*task.at(float_dtype::float32).bytes_at(problem_size::small), 524288);
}

TEST(TaskInfo, Float32IsTheTaskAsDescribed) {
  const auto task = task_info::from_json(described());
  const auto f32 = task.at(float_dtype::float32);
  EXPECT_DOUBLE_EQ(f32.tol.atol, 1e-5);
  EXPECT_EQ(f32.dtypes.at("x"), "float32");
  EXPECT_EQ(f32.output_dtype, "float32");
}

TEST(TaskInfo, AMissingDtypeToleranceIsAnErrorNamingTheTask) {
  auto j = described();
  j["tolerances"].erase("float16");
  const auto task = task_info::from_json(j);
  try {
    (void)task.at(float_dtype::float16);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("task 'softmax' declares no tolerance at float16"), std::string::npos);
  }
}

TEST(Dtype, NamesAndFloat32Mapping) {
  EXPECT_EQ(parse_enum<float_dtype>("bfloat16"), float_dtype::bfloat16);
  EXPECT_EQ(to_string(float_dtype::float16), "float16");
  EXPECT_EQ(at_dtype("float32", float_dtype::bfloat16), "bfloat16");
  EXPECT_EQ(at_dtype("uint8", float_dtype::bfloat16), "uint8");
  EXPECT_THROW((void)parse_enum<float_dtype>("float8"), std::invalid_argument);
}

}  // namespace
}  // namespace pallasbench
