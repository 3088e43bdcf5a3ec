#include "pallasbench/orchestrate/paths.hpp"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "npy_writer.hpp"

namespace pallasbench {
namespace {

// A pid that was a process a moment ago and is none now.
pid_t dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return child;
}

TEST(Scratch, StaleFoldersOfDeadProcessesAreRemoved) {
  testing::temp_dir base;
  const auto dead = base / fmt::format("pallasbench-{}-abcdef", dead_pid());
  const auto alive = base / fmt::format("pallasbench-{}-ghijkl", ::getpid());
  const auto unrelated = base / "pallasbench-notapid";
  for (const auto& dir : {dead, alive, unrelated}) std::filesystem::create_directories(dir / "task" / "seed0");
  testing::write_file(dead / "task" / "seed0" / "x.npy", "inputs");
  EXPECT_EQ(remove_stale_scratch(base.path()), 1u);
  EXPECT_FALSE(std::filesystem::exists(dead));
  EXPECT_TRUE(std::filesystem::exists(alive));
  EXPECT_TRUE(std::filesystem::exists(unrelated));
}

TEST(Scratch, FolderIsPrivateNamedWithPidAndRemoved) {
  std::filesystem::path path;
  {
    const scratch_dir scratch;
    path = scratch.path();
    EXPECT_TRUE(path.filename().string().starts_with(fmt::format("pallasbench-{}-", ::getpid()))) << path;
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    testing::write_file(scratch.fresh("relu") / "x.npy", "data");
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace pallasbench

TEST(PortablePath, RecordsKeepNoAbsolutePath) {
  const auto root = pallasbench::project_root();
  EXPECT_EQ(pallasbench::portable_path(root / "tasks" / "level1" / "relu.py"), "tasks/level1/relu.py");
  EXPECT_EQ(pallasbench::portable_path(root / "tests" / ".." / "tasks" / "x.py"), "tasks/x.py");
  // Outside the project and the working directory: the file's name alone.
  EXPECT_EQ(pallasbench::portable_path("/nonexistent-pallasbench/elsewhere/mine.py"), "mine.py");
  EXPECT_EQ(pallasbench::portable_path("relative/k.py"), "relative/k.py");
}
