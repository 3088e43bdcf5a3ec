#include "pallasbench/summary.hpp"

#include <sstream>

#include <gtest/gtest.h>

namespace pallasbench {
namespace {

nlohmann::json record(const std::string& name, const std::string& status, double kernel_us, double ref_us) {
  return {{"kernel_name", name},
          {"level", 1},
          {"size", "medium"},
          {"status", status},
          {"error", status == "ok" ? nlohmann::json(nullptr) : nlohmann::json{{"message", "seed 0: 3 of 4 elements"}}},
          {"result", {{"max_abs_error", 1.5e-7}, {"robustness_passed", status == "ok"}}},
          {"timing", {{"timer", "wall"}, {"median_us", kernel_us}, {"reference_median_us", ref_us}}}};
}

TEST(Summary, RowFromRecord) {
  const auto row = summary_row::from_record(record("relu", "ok", 50, 100));
  EXPECT_EQ(row.task, "relu");
  EXPECT_EQ(row.timer, "wall");
  ASSERT_TRUE(row.ratio().has_value());
  EXPECT_DOUBLE_EQ(*row.ratio(), 2.0);
}

TEST(Summary, PassedMeansCorrectAndRobust) {
  EXPECT_TRUE(summary_row::from_record(record("relu", "ok", 50, 100)).passed());
  auto not_robust = record("relu", "ok", 50, 100);
  not_robust["result"]["robustness_passed"] = false;
  EXPECT_FALSE(summary_row::from_record(not_robust).passed());
  EXPECT_FALSE(summary_row::from_record(record("relu", "incorrect", 50, 100)).passed());
}

TEST(Summary, InterpretModeClaimsNoRatio) {
  auto r = record("relu", "ok", 50, 100);
  r["config"] = {{"device", "cpu"}};
  EXPECT_FALSE(summary_row::from_record(r).ratio().has_value());
  r["config"]["device"] = "gpu";
  EXPECT_TRUE(summary_row::from_record(r).ratio().has_value());
}

TEST(Summary, MissingTimingHasNoRatio) {
  auto r = record("relu", "crashed", 0, 0);
  r.erase("timing");
  EXPECT_FALSE(summary_row::from_record(r).ratio().has_value());
}

TEST(Summary, TableCountsStatuses) {
  std::ostringstream out;
  table_printer().print(out, {summary_row::from_record(record("relu", "ok", 50, 100)),
                              summary_row::from_record(record("add", "incorrect", 50, 100)),
                              summary_row::from_record(record("exp", "ok", 50, 100))});
  EXPECT_NE(out.str().find("3 tasks: 1 incorrect, 2 ok"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("seed 0: 3 of 4 elements"), std::string::npos);
}

TEST(Summary, MarkdownHasHeaderAndRows) {
  std::ostringstream out;
  make_printer("markdown")->print(out, {summary_row::from_record(record("relu", "ok", 50, 100))});
  EXPECT_NE(out.str().find("| relu | 1 | medium | ok | yes | 1.50e-07 | 50.0 us | 100.0 us | 2.00x |"), std::string::npos)
      << out.str();
  EXPECT_THROW((void)make_printer("html"), std::invalid_argument);
}

TEST(Summary, ProgressLine) {
  const auto line = progress_line(3, 38, summary_row::from_record(record("relu", "ok", 50, 100)), 2.25);
  EXPECT_EQ(line, "[3/38] relu (medium) ok  robust yes  max|err| 1.50e-07  kernel 50.0 us  xla 100.0 us  2.2 s");
}

}  // namespace
}  // namespace pallasbench
