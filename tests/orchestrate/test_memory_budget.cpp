#include "pallasbench/orchestrate/memory_budget.hpp"

#include <fstream>

#include <gtest/gtest.h>

#include "npy_writer.hpp"

namespace pallasbench {
namespace {

task_info task_with_bytes() {
  return task_info::from_json({{"name", "add"},
                               {"level", 1},
                               {"category", "elementwise"},
                               {"inputs", {{{"name", "x"}, {"domain", "real"}}}},
                               {"shapes", {{"large", {{"x", {1024}}}}}},
                               {"tolerance", {{"atol", 1e-5}, {"rtol", 1e-5}, {"rel_norm", 1e-5}}},
                               {"dtypes", {{"x", "float32"}}},
                               {"output_dtype", "float32"},
                               {"bytes", {{"large", 3000000000LL}}},
                               {"views",
                                {{"float32",
                                  {{"tolerance", {{"atol", 1e-5}, {"rtol", 1e-5}, {"rel_norm", 1e-5}}},
                                   {"dtypes", {{"x", "float32"}}},
                                   {"output_dtype", "float32"},
                                   {"bytes", {{"large", 3000000000LL}}}}},
                                 {"bfloat16",
                                  {{"tolerance", {{"atol", 1e-2}, {"rtol", 1e-2}, {"rel_norm", 1e-2}}},
                                   {"dtypes", {{"x", "bfloat16"}}},
                                   {"output_dtype", "bfloat16"},
                                   {"bytes", {{"large", 1500000000LL}}}}}}}});
}

TEST(MemoryBudget, AnEvaluationIsEstimatedFromItsTasksBytesAtItsDtype) {
  const auto task = task_with_bytes();
  EXPECT_EQ(evaluation_host_bytes(task, problem_size::large, float_dtype::float32), 24000000000ULL);
  EXPECT_EQ(evaluation_host_bytes(task, problem_size::large, float_dtype::bfloat16), 12000000000ULL);
  EXPECT_EQ(evaluation_host_bytes(task, problem_size::small, float_dtype::float32), 0u);  // no model there
}

TEST(MemoryBudget, AvailableMemoryIsReadFromMeminfo) {
  testing::temp_dir dir;
  const auto file = dir.path() / "meminfo";
  std::ofstream(file) << "MemTotal:       131072000 kB\nMemFree:         1000 kB\nMemAvailable:   120000000 kB\n";
  EXPECT_EQ(available_host_memory(file), 120000000ULL * 1024);
  std::ofstream(file) << "MemTotal:       131072000 kB\n";
  EXPECT_EQ(available_host_memory(file), std::nullopt);
  EXPECT_EQ(available_host_memory(dir.path() / "missing"), std::nullopt);
}

TEST(MemoryBudget, TheBudgetIsGivenOffOrAShareOfTheAvailable) {
  EXPECT_EQ(memory_budget_bytes(2, 1000), 2ULL << 30);
  EXPECT_EQ(memory_budget_bytes(0, 1000), 0u);
  EXPECT_EQ(memory_budget_bytes(-1, 1000), 850u);
  EXPECT_EQ(memory_budget_bytes(-1, std::nullopt), 0u);
}

TEST(MemoryBudget, TheReserveIsWhatWasAvailableBeyondTheBudget) {
  EXPECT_EQ(memory_reserve_bytes(850, 1000), 150u);        // the default share: 15% stays free
  EXPECT_EQ(memory_reserve_bytes(2000, 1000), 0u);         // a budget above what there was
  EXPECT_EQ(memory_reserve_bytes(0, 1000), 0u);            // no budget, no live limit's reserve
  EXPECT_EQ(memory_reserve_bytes(850, std::nullopt), 0u);  // nothing read
}

}  // namespace
}  // namespace pallasbench
