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
  [[nodiscard]] std::string name() const override { return "scripted"; }

private:
  outcome m_outcome;
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

TEST(RobustnessFilter, MissingEvidenceIsAFailedResultThatSaysWhat) {
  const auto r = scripted_filter(scripted_filter::outcome::missing).evaluate(filter_inputs{});
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.value, 0);
  EXPECT_EQ(r.threshold, 0);
  EXPECT_EQ(r.reason, "cannot run: no outputs");
}

TEST(RobustnessFilter, AnyExceptionIsAFailedResultNeverAnEscape) {
  filter_result r;
  EXPECT_NO_THROW(r = scripted_filter(scripted_filter::outcome::error).evaluate(filter_inputs{}));
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.reason, "cannot run: index 7 past the end");
}

TEST(FilterResult, NonFiniteValueIsNullInTheRecord) {
  const filter_result r{false, std::numeric_limits<double>::infinity(), 0.25, "input x: ..."};
  const auto j = r.to_json();
  EXPECT_TRUE(j["value"].is_null());
  EXPECT_EQ(j["threshold"], 0.25);
  EXPECT_EQ(j["passed"], false);
  EXPECT_EQ(j["reason"], "input x: ...");
}

}  // namespace
}  // namespace pallasbench
