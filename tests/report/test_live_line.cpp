// The live progress line's text: counts, elapsed and ETA, the busy lanes, and a width it never
// exceeds.
#include "pallasbench/report/live_line.hpp"

#include <string>

#include <gtest/gtest.h>

namespace pallasbench {
namespace {

live_status two_lanes_busy() {
  return {3, 10, 2, 12.5, {{0, "softmax (small)", "compile"}, {1, "add (small)", "timing"}}};
}

TEST(LiveLine, ShowsCountsTimesAndEachBusyLane) {
  EXPECT_EQ(live_line(two_lanes_busy(), 200),
            "[3/10] elapsed 0:12  ETA 0:43 | softmax (small) compile | add (small) timing");
}

TEST(LiveLine, EtaIsUnknownUntilATaskIsEvaluated) {
  live_status status{2, 10, 0, 30, {}};  // two recorded before, none evaluated yet
  EXPECT_FALSE(eta_seconds(status).has_value());
  EXPECT_EQ(live_line(status, 80), "[2/10] elapsed 0:30  ETA --");
}

TEST(LiveLine, EtaIsThePaceOfTheEvaluatedTasksOverWhatRemains) {
  // 4 done of 10, of which 1 recorded before: 3 evaluated in 60 s, 6 to go.
  live_status status{4, 10, 3, 60, {}};
  ASSERT_TRUE(eta_seconds(status).has_value());
  EXPECT_DOUBLE_EQ(*eta_seconds(status), 120.0);
  status.done = 10;
  EXPECT_DOUBLE_EQ(*eta_seconds(status), 0.0);
}

TEST(LiveLine, ALaneBetweenPhasesShowsItsTaskAlone) {
  live_status status{0, 1, 0, 0, {{0, "relu (small)", ""}}};
  EXPECT_EQ(live_line(status, 80), "[0/1] elapsed 0:00  ETA -- | relu (small)");
}

TEST(LiveLine, ClockFormat) {
  EXPECT_EQ(format_clock(0), "0:00");
  EXPECT_EQ(format_clock(7.9), "0:07");
  EXPECT_EQ(format_clock(754), "12:34");
  EXPECT_EQ(format_clock(3723), "1:02:03");
  EXPECT_EQ(format_clock(-5), "0:00");
}

TEST(LiveLine, NeverReachesTheLastColumn) {
  for (std::size_t columns : {1, 2, 5, 20, 40, 79, 80}) {
    const auto line = live_line(two_lanes_busy(), columns);
    EXPECT_LE(line.size(), columns - 1) << columns << ": " << line;
  }
  const auto cut = live_line(two_lanes_busy(), 40);
  EXPECT_EQ(cut, "[3/10] elapsed 0:12  ETA 0:43 | soft...");
  EXPECT_EQ(live_line(two_lanes_busy(), 0), "");
}

TEST(LiveLine, FitWidthKeepsWholeUtf8Sequences) {
  EXPECT_EQ(fit_width("abc", 3), "abc");
  EXPECT_EQ(fit_width("abcdef", 5), "ab...");
  EXPECT_EQ(fit_width("abcdef", 2), "..");
  // "é" is two bytes: a cut through it backs off to before it.
  EXPECT_EQ(fit_width("ab\xc3\xa9xyz", 6), "ab...");
  EXPECT_EQ(fit_width("ab\xc3\xa9xyzw", 7), "ab\xc3\xa9...");
}

TEST(LiveLine, ClearReturnsToTheFirstColumnAndErasesTheLine) { EXPECT_EQ(k_clear_line, "\r\x1b[2K"); }

}  // namespace
}  // namespace pallasbench
