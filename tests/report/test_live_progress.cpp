// The live progress printer over a fake terminal and clock: the plain lines stay in the
// scrollback, the live line is redrawn below them (at most so often), fits the width, and is gone
// when the run ends or an exception ends it; the mode picks it only for a terminal.
#include "pallasbench/report/live_progress.hpp"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>

#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace pallasbench {
namespace {

using namespace std::chrono_literals;
using clock_type = live_terminal::clock;

// A terminal of `columns` columns whose clock moves only when told.
struct fake_screen {
  std::ostringstream out;
  clock_type::time_point now{};
  std::size_t columns = 100;

  live_terminal terminal() {
    return {[this] { return columns; }, [this] { return now; }, 200ms};
  }
  std::unique_ptr<live_progress_printer> printer_over_plain_lines() {
    return std::make_unique<live_progress_printer>(out, std::make_unique<progress_printer>(out, false), terminal());
  }
  // What was written since the last call.
  std::string take() {
    auto text = out.str();
    out.str("");
    return text;
  }
};

summary_row ok_row(const std::string& task) {
  summary_row row;
  row.task = task;
  row.size = "small";
  row.status = task_status::ok;
  return row;
}

task_progress evaluated(std::size_t index, std::size_t total, const std::string& task) {
  return {index, total, task_event::evaluated, 2.0, task, "small"};
}

const std::string clear(k_clear_line);

TEST(LiveProgress, DrawsOnStartAndRedrawsOnTicksAtMostSoOften) {
  fake_screen screen;
  auto p = screen.printer_over_plain_lines();
  p->run_started({2, "small", "cpu", "cpu", "", 2, 1});
  EXPECT_EQ(screen.take(), clear + "[0/2] elapsed 0:00  ETA --");
  screen.now += 100ms;
  p->lanes_busy({{0, "relu (small)", "trace"}});
  EXPECT_EQ(screen.take(), "");  // 100 ms after the last draw: not yet
  screen.now += 150ms;
  p->lanes_busy({{0, "relu (small)", "compile"}, {1, "add (small)", "reference"}});
  EXPECT_EQ(screen.take(), clear + "[0/2] elapsed 0:00  ETA -- | relu (small) compile | add (small) reference");
  screen.now += 300ms;
  p->lanes_busy({{0, "relu (small)", "compile"}, {1, "add (small)", "reference"}});
  EXPECT_EQ(screen.take(), "");  // the same text: not drawn again
}

TEST(LiveProgress, AFinishedTaskPrintsItsLineAboveTheLiveLine) {
  fake_screen screen;
  auto p = screen.printer_over_plain_lines();
  p->run_started({2, "small", "cpu", "cpu", "", 2, 1});
  p->lanes_busy({{0, "relu (small)", "checks"}, {1, "add (small)", "trace"}});
  screen.take();
  screen.now += 10s;
  const auto row = ok_row("relu");
  p->task_finished(evaluated(1, 2, "relu"), &row, nullptr);
  const auto text = screen.take();
  // Cleared, the plain line, then the line again without the finished task's lane.
  const auto plain = progress_line(1, 2, row, 2.0);
  EXPECT_EQ(text, clear + plain + "\n" + clear + "[1/2] elapsed 0:10  ETA 0:10 | add (small) trace");
}

TEST(LiveProgress, RunFinishedLeavesTheTerminalClean) {
  fake_screen screen;
  auto p = screen.printer_over_plain_lines();
  p->run_started({1, "small", "cpu", "cpu", "", 1, 1});
  const auto row = ok_row("relu");
  p->task_finished(evaluated(1, 1, "relu"), &row, nullptr);
  screen.take();
  p->run_finished({row}, {});
  EXPECT_EQ(screen.take(), clear);
  screen.now += 1s;
  p->lanes_busy({{0, "late (small)", "trace"}});  // nothing more is drawn once the run ended
  p.reset();
  EXPECT_EQ(screen.take(), "");
}

TEST(LiveProgress, DestroyedMidRunItClearsTheLine) {
  fake_screen screen;
  auto p = screen.printer_over_plain_lines();
  p->run_started({3, "small", "cpu", "cpu", "", 1, 1});
  screen.take();
  p.reset();  // an exception unwinding past the run
  EXPECT_EQ(screen.take(), clear);
}

TEST(LiveProgress, FitsTheWidthAsTheWindowChanges) {
  fake_screen screen;
  auto p = screen.printer_over_plain_lines();
  screen.columns = 20;
  p->run_started({38, "small", "cpu", "cpu", "", 1, 1});
  EXPECT_EQ(screen.take(), clear + "[0/38] elapsed 0...");
  screen.columns = 40;  // resized: asked again at each draw
  screen.now += 1s;
  p->lanes_busy({{0, "softmax (small)", "timing"}});
  EXPECT_EQ(screen.take(), clear + "[0/38] elapsed 0:01  ETA -- | softma...");
}

TEST(LiveProgress, RecordedTasksDoNotCountInThePace) {
  fake_screen screen;
  auto p = screen.printer_over_plain_lines();
  p->run_started({4, "small", "cpu", "cpu", "", 1, 1});
  auto row = ok_row("relu");
  row.recorded = true;
  p->task_finished({1, 4, task_event::recorded_before, 0, "relu", "small"}, &row, nullptr);
  EXPECT_NE(screen.take().find("[1/4] elapsed 0:00  ETA --"), std::string::npos);
  screen.now += 30s;
  const auto add = ok_row("add");
  p->task_finished(evaluated(2, 4, "add"), &add, nullptr);
  EXPECT_NE(screen.take().find("[2/4] elapsed 0:30  ETA 1:00"), std::string::npos);
}

TEST(LiveProgress, ModeAndTerminal) {
  EXPECT_EQ(parse_enum<progress_mode>("auto"), progress_mode::automatic);
  EXPECT_EQ(to_string(progress_mode::plain), "plain");
  EXPECT_THROW((void)parse_enum<progress_mode>("fancy"), std::invalid_argument);
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  EXPECT_FALSE(wants_live_line(progress_mode::automatic, fds[1]));  // a pipe: plain lines
  EXPECT_TRUE(wants_live_line(progress_mode::live, fds[1]));
  EXPECT_GT(terminal_columns(fds[1]), 0u);
  ::close(fds[0]);
  ::close(fds[1]);
  const int terminal = ::posix_openpt(O_RDWR | O_NOCTTY);
  if (terminal < 0) GTEST_SKIP() << "no pseudo-terminal here";
  ASSERT_EQ(::grantpt(terminal), 0);
  ASSERT_EQ(::unlockpt(terminal), 0);
  const int side = ::open(::ptsname(terminal), O_RDWR | O_NOCTTY);
  ASSERT_GE(side, 0);
  winsize size{};
  size.ws_col = 57;
  size.ws_row = 20;
  ASSERT_EQ(::ioctl(side, TIOCSWINSZ, &size), 0);
  EXPECT_EQ(terminal_columns(side), 57u);
  const char* term = std::getenv("TERM");
  const std::string saved = term ? term : "";
  ::setenv("TERM", "xterm", 1);
  EXPECT_TRUE(wants_live_line(progress_mode::automatic, side));
  EXPECT_FALSE(wants_live_line(progress_mode::plain, side));
  ::setenv("TERM", "dumb", 1);  // a terminal that cannot erase a line
  EXPECT_FALSE(wants_live_line(progress_mode::automatic, side));
  if (term)
    ::setenv("TERM", saved.c_str(), 1);
  else
    ::unsetenv("TERM");
  ::close(side);
  ::close(terminal);
}

TEST(LiveProgress, WithProgressWrapsOnlyWhenAsked) {
  std::ostringstream out;
  auto plain = std::make_unique<progress_printer>(out, false);
  const auto* raw = plain.get();
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  auto same = with_progress(std::move(plain), out, fds[1], progress_mode::automatic);
  EXPECT_EQ(same.get(), raw);
  auto live = with_progress(std::move(same), out, fds[1], progress_mode::live);
  EXPECT_NE(dynamic_cast<live_progress_printer*>(live.get()), nullptr);
  ::close(fds[0]);
  ::close(fds[1]);
}

}  // namespace
}  // namespace pallasbench
