#include "pallasbench/orchestrate/subprocess.hpp"

#include <csignal>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

namespace pallasbench {
namespace {

using namespace std::chrono_literals;

child_process shell(const std::string& script) { return child_process({{"/bin/sh", "-c", script}, {}, {}}); }

TEST(Subprocess, ExchangesLines) {
  auto child = shell("echo ready; read x; echo got-$x");
  std::string line;
  ASSERT_EQ(child.read_line(line, 5s), child_process::read_status::line);
  EXPECT_EQ(line, "ready");
  child.write_line("ping");
  ASSERT_EQ(child.read_line(line, 5s), child_process::read_status::line);
  EXPECT_EQ(line, "got-ping");
}

TEST(Subprocess, TimesOutOnSilence) {
  auto child = shell("sleep 30");
  std::string line;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(child.read_line(line, 300ms), child_process::read_status::timeout);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  const auto status = child.kill_and_wait();
  EXPECT_TRUE(status.signaled);
  EXPECT_EQ(status.signal, SIGKILL);
  EXPECT_EQ(status.describe(), "signal 9 (SIGKILL)");
}

TEST(Subprocess, ReportsExitAndStderrTail) {
  auto child = shell("echo oops >&2; exit 3");
  std::string line;
  EXPECT_EQ(child.read_line(line, 5s), child_process::read_status::eof);
  const auto status = child.wait_for_exit(5s);
  ASSERT_TRUE(status.has_value());
  EXPECT_FALSE(status->signaled);
  EXPECT_EQ(status->code, 3);
  EXPECT_NE(child.stderr_tail().find("oops"), std::string::npos);
}

TEST(Subprocess, AbortIsSignalSix) {
  auto child = shell("kill -ABRT $$");
  std::string line;
  EXPECT_EQ(child.read_line(line, 5s), child_process::read_status::eof);
  const auto status = child.wait_for_exit(5s);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->describe(), "signal 6 (SIGABRT)");
}

TEST(Subprocess, KillTakesTheWholeProcessGroup) {
  pid_t grandchild = 0;
  {
    auto child = shell("sleep 60 & echo $!; wait");
    std::string line;
    ASSERT_EQ(child.read_line(line, 5s), child_process::read_status::line);
    grandchild = std::stoi(line);
    ASSERT_EQ(::kill(grandchild, 0), 0);
  }  // destructor kills the group
  // The grandchild is gone, or a zombie waiting for an init that may never reap it.
  const auto alive = [grandchild] {
    std::ifstream stat("/proc/" + std::to_string(grandchild) + "/stat");
    std::string pid, comm, state;
    return static_cast<bool>(stat >> pid >> comm >> state) && state != "Z";
  };
  for (int i = 0; i < 100 && alive(); ++i) std::this_thread::sleep_for(10ms);
  EXPECT_FALSE(alive());
}

TEST(Subprocess, StderrTailIsBounded) {
  child_process child({{"/bin/sh", "-c", "head -c 200000 /dev/zero | tr '\\0' x >&2; echo done"}, {}, {}, 1000});
  std::string line;
  ASSERT_EQ(child.read_line(line, 10s), child_process::read_status::line);
  EXPECT_LE(child.stderr_tail().size(), 1000u);
}

TEST(Subprocess, WritingToADeadChildThrowsInsteadOfRaisingSigpipe) {
  auto child = shell("exit 0");
  ASSERT_TRUE(child.wait_for_exit(5s).has_value());
  EXPECT_THROW(
      {
        for (int i = 0; i < 100; ++i) child.write_line("into the void");
      },
      process_error);
}

TEST(Subprocess, MissingProgramThrows) {
  EXPECT_THROW(child_process({{"/nonexistent/program"}, {}, {}}), process_error);
}

}  // namespace
}  // namespace pallasbench
