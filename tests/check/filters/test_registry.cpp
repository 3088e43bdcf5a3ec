#include "pallasbench/check/filters/registry.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace pallasbench {
namespace {

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

TEST(DefaultFilters, TheFiveInRecordOrder) {
  std::vector<std::string> names;
  for (const auto& filter : default_filters()) names.push_back(filter->name());
  EXPECT_EQ(names, (std::vector<std::string>{"output_range", "output_std", "axes_variation", "input_impact",
                                             "source_analysis"}));
}

class passing_filter final : public robustness_filter {
public:
  [[nodiscard]] std::string name() const override { return "passing"; }

private:
  [[nodiscard]] filter_result do_evaluate(const filter_inputs&) const override { return {true, 1, 0.5, "ok"}; }
};

class throwing_filter final : public robustness_filter {
public:
  [[nodiscard]] std::string name() const override { return "throwing"; }

private:
  [[nodiscard]] filter_result do_evaluate(const filter_inputs&) const override {
    throw std::runtime_error("npy: truncated data");
  }
};

TEST(RunFilters, AThrowingFilterFailsAloneWithItsReason) {
  std::vector<std::unique_ptr<robustness_filter>> filters;
  filters.push_back(std::make_unique<throwing_filter>());
  filters.push_back(std::make_unique<passing_filter>());
  bool all = true;
  const auto out = run_filters(filters, filter_inputs{}, all);
  EXPECT_FALSE(all);
  EXPECT_EQ(out["throwing"],
            (nlohmann::json{
                {"passed", false}, {"value", 0.0}, {"threshold", 0.0}, {"reason", "cannot run: npy: truncated data"}}));
  EXPECT_EQ(out["passing"]["passed"], true);
}

}  // namespace
}  // namespace pallasbench
