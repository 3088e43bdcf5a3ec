// Detecting a delegated cgroup v2 tree (cgroup.hpp) on folders laid out as /proc and cgroupfs
// would have them: what makes one usable, and what each worker's group holds.
#include "pallasbench/orchestrate/cgroup.hpp"

#include <fstream>

#include <gtest/gtest.h>

#include "npy_writer.hpp"

namespace pallasbench {
namespace {

namespace fs = std::filesystem;

struct fake_cgroups {
  testing::temp_dir dir;
  fs::path group = dir.path() / "fs" / "user.slice" / "run";

  fake_cgroups(const std::string& controllers, const std::string& subtree, const std::string& procs,
               const std::string& type = "cgroup2") {
    fs::create_directories(group);
    std::ofstream(dir.path() / "cgroup") << "0::/user.slice/run\n";
    std::ofstream(dir.path() / "mounts") << "proc /proc proc rw 0 0\ncg " << (dir.path() / "fs").string() << " " << type
                                         << " rw 0 0\n";
    std::ofstream(group / "cgroup.controllers") << controllers << "\n";
    std::ofstream(group / "cgroup.subtree_control") << subtree << "\n";
    std::ofstream(group / "cgroup.procs") << procs;
  }
  [[nodiscard]] cgroup_sources sources() const { return {dir.path() / "cgroup", dir.path() / "mounts", 4242}; }
};

std::string read(const fs::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(Cgroup, ADelegatedMemoryControllerGivesEachWorkerAGroupWithItsLimit) {
  fake_cgroups fake("cpu memory pids", "memory pids", "4242\n");
  std::string why;
  const auto tree = cgroup_tree::detect(why, fake.sources());
  ASSERT_TRUE(tree) << why;
  EXPECT_EQ(tree->root(), fake.group);
  fs::create_directories(fake.group / "tracer-77");
  std::ofstream(fake.group / "tracer-77" / "memory.swap.max") << "max\n";
  const auto leaf = tree->place(77, "tracer-77", 1536 * 1024 * 1024ULL);
  EXPECT_EQ(read(leaf->path() / "memory.max"), "1610612736");
  EXPECT_EQ(read(leaf->path() / "memory.swap.max"), "0");
  EXPECT_EQ(read(leaf->path() / "cgroup.procs"), "77");
  EXPECT_EQ(leaf->oom_kills(), 0u);
  std::ofstream(leaf->path() / "memory.events") << "low 0\nhigh 0\nmax 9\noom 2\noom_kill 1\n";
  EXPECT_EQ(leaf->oom_kills(), 1u);
}

TEST(Cgroup, TheHarnessAloneInItsGroupMovesIntoALeafAndDelegatesMemory) {
  fake_cgroups fake("cpu memory", "", "4242\n");
  std::string why;
  ASSERT_TRUE(cgroup_tree::detect(why, fake.sources())) << why;
  EXPECT_EQ(read(fake.group / "pallasbench-harness-4242" / "cgroup.procs"), "4242");
  EXPECT_EQ(read(fake.group / "cgroup.subtree_control"), "+memory");
}

TEST(Cgroup, AtTheHierarchysRootMemoryIsDelegatedWhateverElseRunsThere) {
  fake_cgroups fake("cpu memory", "", "1\n4242\n900\n");
  std::ofstream(fake.dir.path() / "cgroup") << "0::/\n";
  std::string why;
  const auto tree = cgroup_tree::detect(why, {fake.dir.path() / "cgroup", fake.dir.path() / "mounts", 4242});
  EXPECT_FALSE(tree) << "the fake root has no controllers file: " << (tree ? tree->root().string() : why);
  std::ofstream(fake.dir.path() / "fs" / "cgroup.controllers") << "cpu memory\n";
  std::ofstream(fake.dir.path() / "fs" / "cgroup.subtree_control") << "\n";
  const auto root = cgroup_tree::detect(why, {fake.dir.path() / "cgroup", fake.dir.path() / "mounts", 4242});
  ASSERT_TRUE(root) << why;
  EXPECT_EQ(root->root(), fake.dir.path() / "fs");
  EXPECT_EQ(read(fake.dir.path() / "fs" / "cgroup.subtree_control"), "+memory");
}

TEST(Cgroup, NoTreeWithoutV2TheControllerOrAGroupOfItsOwn) {
  std::string why;
  fake_cgroups v1("memory", "memory", "4242\n", "cgroup");
  EXPECT_FALSE(cgroup_tree::detect(why, v1.sources()));
  EXPECT_EQ(why, "no cgroup v2 hierarchy (cgroup v1 only, or none mounted)");

  fake_cgroups no_memory("hugetlb", "", "4242\n");
  EXPECT_FALSE(cgroup_tree::detect(why, no_memory.sources()));
  EXPECT_NE(why.find("the memory controller is not available there (cgroup.controllers: 'hugetlb')"), std::string::npos)
      << why;

  fake_cgroups shared("cpu memory", "", "1\n4242\n900\n");
  EXPECT_FALSE(cgroup_tree::detect(why, shared.sources()));
  EXPECT_NE(why.find("holds 2 process(es) besides the harness"), std::string::npos) << why;
  EXPECT_NE(why.find("Delegate=yes"), std::string::npos) << why;
}

}  // namespace
}  // namespace pallasbench
