// `pallasbench filters`: the registry's descriptions as text, JSON and docs/filters.md's table.
#include "detail/filter_listing.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pallasbench/check/filters/registry.hpp"

namespace pallasbench::detail {
namespace {

const std::vector<filter_description> k_two{
    {"input_impact", "|d_out - d_ref| / |d_ref|", pass_direction::at_most, 0.25, ""},
    {"by_tolerance", "spread", pass_direction::at_least, 2, "the task's atol"},
};

TEST(FilterListing, MarkdownIsOneEscapedRowPerFilter) {
  EXPECT_EQ(filters_markdown(k_two),
            "| filter | what it checks | passes when |\n"
            "|---|---|---|\n"
            "| `input_impact` | \\|d_out - d_ref\\| / \\|d_ref\\| | value <= 0.25 |\n"
            "| `by_tolerance` | spread | value >= 2 by default; set by the task's atol |\n");
}

TEST(FilterListing, JsonIsTheDescriptionsInOrder) {
  const auto parsed = nlohmann::json::parse(filters_json(k_two));
  ASSERT_EQ(parsed.size(), 2u);
  EXPECT_EQ(parsed[0], k_two[0].to_json());
  EXPECT_EQ(parsed[1]["threshold_varies_with"], "the task's atol");
}

TEST(FilterListing, TextNamesEveryRegisteredFilter) {
  const auto registered = filter_descriptions();
  const auto text = filters_text(registered);
  for (const auto& d : registered) {
    EXPECT_NE(text.find(d.name + " "), std::string::npos) << d.name;
    EXPECT_NE(text.find(d.passes_when()), std::string::npos) << d.name;
  }
  EXPECT_NE(text.find(std::to_string(registered.size()) + " filters\n"), std::string::npos);
}

}  // namespace
}  // namespace pallasbench::detail
