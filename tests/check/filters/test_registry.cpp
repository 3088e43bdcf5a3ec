#include "pallasbench/check/filters/registry.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace pallasbench {
namespace {

// Over whatever the registry holds: a new filter is checked here without a line of this file.
TEST(RunFilters, MissingEvidenceFailsEveryFilterWithReason) {
  bool all = true;
  const auto out = run_filters(default_filters(), filter_inputs{}, all);
  EXPECT_FALSE(all);
  const auto described = filter_descriptions();
  ASSERT_EQ(out.size(), described.size());
  for (const auto& d : described) {
    ASSERT_TRUE(out.contains(d.name)) << d.name;
    const auto& result = out[d.name];
    EXPECT_FALSE(result["passed"].get<bool>()) << d.name;
    EXPECT_NE(result["reason"].get<std::string>().find("cannot run"), std::string::npos) << d.name;
    EXPECT_EQ(result["direction"], to_string(d.direction)) << d.name;
    EXPECT_EQ(result["threshold"], d.threshold ? nlohmann::json(*d.threshold) : nlohmann::json(nullptr)) << d.name;
  }
}

TEST(DefaultFilters, EachDescribesItselfCompletely) {
  const auto filters = default_filters();
  const auto described = filter_descriptions();
  ASSERT_FALSE(filters.empty());
  ASSERT_EQ(described.size(), filters.size());
  std::set<std::string> names;
  for (std::size_t i = 0; i < filters.size(); ++i) {
    const auto& d = described[i];
    EXPECT_EQ(filters[i]->name(), d.name);  // in the registry's order
    EXPECT_TRUE(names.insert(d.name).second) << "two filters named " << d.name;
    EXPECT_FALSE(d.name.empty());
    EXPECT_EQ(d.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_"), std::string::npos) << d.name;
    EXPECT_FALSE(d.checks.empty()) << d.name;
    EXPECT_EQ(d.checks.find('\n'), std::string::npos) << d.name << ": one line";
    if (d.direction == pass_direction::reason_only) {
      EXPECT_FALSE(d.threshold.has_value()) << d.name;
    } else {
      ASSERT_TRUE(d.threshold.has_value()) << d.name;
      EXPECT_TRUE(std::isfinite(*d.threshold)) << d.name;
    }
  }
}

class passing_filter final : public robustness_filter {
  [[nodiscard]] filter_description do_describe() const override {
    return {"passing", "nothing", pass_direction::at_least, 0.5, ""};
  }
  [[nodiscard]] filter_result do_evaluate(const filter_inputs&) const override { return {true, 1, 0.5, "ok"}; }
};

class throwing_filter final : public robustness_filter {
  [[nodiscard]] filter_description do_describe() const override {
    return {"throwing", "nothing", pass_direction::at_most, 0.25, ""};
  }
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
  EXPECT_EQ(out["throwing"], (nlohmann::json{{"passed", false},
                                             {"value", 0.0},
                                             {"threshold", 0.25},
                                             {"direction", "<="},
                                             {"reason", "cannot run: npy: truncated data"}}));
  EXPECT_EQ(out["passing"]["passed"], true);
  EXPECT_EQ(out["passing"]["direction"], ">=");
}

}  // namespace
}  // namespace pallasbench
