#include "pallasbench/suite/selection.hpp"

#include <gtest/gtest.h>

namespace pallasbench {
namespace {

std::vector<task_info> suite() {
  std::vector<task_info> tasks(4);
  tasks[0].name = "swiglu", tasks[0].level = 2, tasks[0].category = "mlp_fusion";
  tasks[1].name = "relu", tasks[1].level = 1, tasks[1].category = "activation";
  tasks[2].name = "add", tasks[2].level = 1, tasks[2].category = "elementwise";
  tasks[3].name = "gelu", tasks[3].level = 1, tasks[3].category = "activation";
  return tasks;
}

std::vector<std::string> names(const std::vector<task_info>& tasks) {
  std::vector<std::string> out;
  for (const auto& t : tasks) out.push_back(t.name);
  return out;
}

TEST(Filter, NoFiltersKeepsAllInSuiteOrder) {
  EXPECT_EQ(names(select_tasks(suite(), {})), (std::vector<std::string>{"add", "gelu", "relu", "swiglu"}));
}

TEST(Filter, FiltersCombine) {
  filter_list filters;
  filters.push_back(std::make_unique<level_filter>(1));
  filters.push_back(std::make_unique<category_filter>("activation"));
  EXPECT_EQ(names(select_tasks(suite(), filters)), (std::vector<std::string>{"gelu", "relu"}));
  filters.push_back(std::make_unique<name_filter>(std::vector<std::string>{"relu", "swiglu"}));
  EXPECT_EQ(names(select_tasks(suite(), filters)), (std::vector<std::string>{"relu"}));
}

TEST(Filter, UnknownNames) {
  EXPECT_EQ(unknown_names(suite(), {"relu", "nope", "gelu2"}), (std::vector<std::string>{"nope", "gelu2"}));
}

TEST(TaskInfo, FromDescribeJson) {
  const auto j = nlohmann::json::parse(R"({"name": "add", "level": 1, "category": "elementwise",
    "inputs": [{"name": "x", "domain": "real"}, {"name": "y", "domain": "real"}],
    "shapes": {"small": {"x": [8, 8], "y": [8, 8]}},
    "tolerance": {"atol": 1e-5, "rtol": 1e-5, "rel_norm": 1e-5}, "uses_tf32": false, "order_dependent": false,
    "flops": {"small": 64}, "bytes": {"small": 768}})");
  const auto t = task_info::from_json(j);
  EXPECT_EQ(t.inputs.size(), 2u);
  EXPECT_EQ(t.shape_summary(problem_size::small), "x(8,8) y(8,8)");
  EXPECT_DOUBLE_EQ(t.tol.rtol, 1e-5);
  EXPECT_EQ(t.flops.at("small"), 64);
}

}  // namespace
}  // namespace pallasbench
