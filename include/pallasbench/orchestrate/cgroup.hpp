// A cgroup v2 subtree delegated to the harness, where each worker gets a group of its own with a
// memory limit (memory.max, memory.swap.max 0): the kernel then reclaims or kills within that
// group, never elsewhere, and counts the process's tmpfs pages against it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

namespace pallasbench {

// One worker's group; removed (rmdir) when destroyed, after its process is gone.
class cgroup_leaf {
public:
  explicit cgroup_leaf(std::filesystem::path path) : m_path(std::move(path)) {}
  ~cgroup_leaf();
  cgroup_leaf(const cgroup_leaf&) = delete;
  cgroup_leaf& operator=(const cgroup_leaf&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const { return m_path; }
  // memory.events' oom_kill: how many of its processes the kernel killed at its limit.
  [[nodiscard]] std::uint64_t oom_kills() const;

private:
  std::filesystem::path m_path;
};

// Where cgroup_tree::detect reads the process's group and the mounts (tests point these at a
// folder of their own).
struct cgroup_sources {
  std::filesystem::path self_cgroup = "/proc/self/cgroup";
  std::filesystem::path mounts = "/proc/self/mounts";
  pid_t self = 0;  // 0: this process
};

class cgroup_tree {
public:
  // The harness's own cgroup v2 group when the memory controller can be given to its children:
  // it is in the group's cgroup.controllers, and either in its cgroup.subtree_control already or
  // enabled there after the harness moved itself into a leaf of its own (allowed only when the
  // harness is the group's one process). A probe group is made and removed to prove it. None,
  // with the reason in `why`, on a cgroup v1 machine, without the controller, or without write
  // access.
  [[nodiscard]] static std::shared_ptr<cgroup_tree> detect(std::string& why, const cgroup_sources& from = {});

  // A group `name` under the tree with memory.max `bytes` and no swap, `pid` moved into it.
  // Throws std::runtime_error naming the file it could not write.
  [[nodiscard]] std::unique_ptr<cgroup_leaf> place(pid_t pid, const std::string& name, std::uint64_t bytes) const;
  [[nodiscard]] const std::filesystem::path& root() const { return m_root; }

private:
  explicit cgroup_tree(std::filesystem::path root) : m_root(std::move(root)) {}
  std::filesystem::path m_root;
};

}  // namespace pallasbench
