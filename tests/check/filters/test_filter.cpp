#include "pallasbench/check/filters/filter.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>
#include <string>

namespace pallasbench {
namespace {

// A filter that answers what it is told to: a result, missing evidence, or another exception.
class scripted_filter final : public robustness_filter {
public:
  enum class outcome { pass, missing, error };
  explicit scripted_filter(outcome o) : m_outcome(o) {}

private:
  outcome m_outcome;
  [[nodiscard]] filter_description do_describe() const override {
    return {"scripted", "what it is told", pass_direction::at_least, 0.5, ""};
  }
  [[nodiscard]] filter_result do_evaluate(const filter_inputs&) const override {
    if (m_outcome == outcome::missing) throw missing_evidence("no outputs");
    if (m_outcome == outcome::error) throw std::out_of_range("index 7 past the end");
    return {true, 0.9, 0.5, "fine"};
  }
};

TEST(RobustnessFilter, EvaluateReturnsTheFiltersResult) {
  const auto r = scripted_filter(scripted_filter::outcome::pass).evaluate(filter_inputs{});
  EXPECT_TRUE(r.passed);
  EXPECT_DOUBLE_EQ(r.value, 0.9);
  EXPECT_DOUBLE_EQ(r.threshold, 0.5);
  EXPECT_EQ(r.reason, "fine");
}

TEST(RobustnessFilter, EveryResultCarriesTheDescriptionsDirection) {
  const scripted_filter filter(scripted_filter::outcome::pass);
  EXPECT_EQ(filter.name(), "scripted");
  EXPECT_EQ(filter.evaluate(filter_inputs{}).direction, pass_direction::at_least);
  EXPECT_EQ(filter.evaluate(filter_inputs{}).to_json()["direction"], ">=");
  EXPECT_EQ(scripted_filter(scripted_filter::outcome::error).evaluate(filter_inputs{}).direction,
            pass_direction::at_least);
}

TEST(RobustnessFilter, MissingEvidenceIsAFailedResultThatSaysWhat) {
  const auto r = scripted_filter(scripted_filter::outcome::missing).evaluate(filter_inputs{});
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.value, 0);
  EXPECT_EQ(r.threshold, 0.5);  // the description's: the one it would have compared with
  EXPECT_EQ(r.reason, "cannot run: no outputs");
}

TEST(RobustnessFilter, AnyExceptionIsAFailedResultNeverAnEscape) {
  filter_result r;
  EXPECT_NO_THROW(r = scripted_filter(scripted_filter::outcome::error).evaluate(filter_inputs{}));
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.reason, "cannot run: index 7 past the end");
}

TEST(FilterResult, NonFiniteValueIsNullInTheRecord) {
  const filter_result r{false, std::numeric_limits<double>::infinity(), 0.25, "input x: ...", pass_direction::at_most};
  const auto j = r.to_json();
  EXPECT_TRUE(j["value"].is_null());
  EXPECT_EQ(j["threshold"], 0.25);
  EXPECT_EQ(j["direction"], "<=");
  EXPECT_EQ(j["passed"], false);
  EXPECT_EQ(j["reason"], "input x: ...");
}

TEST(FilterResult, AReasonOnlyFilterRecordsNoThreshold) {
  const auto j = filter_result{false, 0, 0, "matched", pass_direction::reason_only}.to_json();
  EXPECT_TRUE(j["threshold"].is_null());  // left out of the record (no field is null there)
  EXPECT_EQ(j["direction"], "reason-only");
}

TEST(FilterDescription, SaysWhenItPassesAndIsData) {
  const filter_description at_most{"input_impact", "the change", pass_direction::at_most, 0.25, ""};
  EXPECT_EQ(at_most.passes_when(), "value <= 0.25");
  EXPECT_EQ(at_most.to_json(), (nlohmann::json{{"name", "input_impact"},
                                               {"checks", "the change"},
                                               {"direction", "<="},
                                               {"threshold", 0.25},
                                               {"threshold_varies_with", ""}}));
  const filter_description qualitative{"regex", "patterns", pass_direction::reason_only, std::nullopt, ""};
  EXPECT_EQ(qualitative.passes_when(), "no reason to refuse");
  EXPECT_TRUE(qualitative.to_json()["threshold"].is_null());
  EXPECT_EQ(from_string<pass_direction>(">="), pass_direction::at_least);
  EXPECT_EQ(from_string<pass_direction>("reason-only"), pass_direction::reason_only);
  EXPECT_THROW((void)parse_enum<pass_direction>("above"), std::invalid_argument);
}

}  // namespace
}  // namespace pallasbench
