#include "pallasbench/orchestrate/cgroup.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include <fmt/format.h>

namespace pallasbench {
namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t k_probe_bytes = std::uint64_t{1} << 30;  // any limit: the probe proves it can be written

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

bool has_word(const std::string& text, const std::string& word) {
  for (const auto& w : words(text))
    if (w == word) return true;
  return false;
}

// One write() of `text`, as the cgroup files want it; the errno's text when it fails.
std::optional<std::string> write_file(const fs::path& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return std::string(std::strerror(errno));
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int error = errno;
  ::close(fd);
  if (!ok) return std::string(std::strerror(error));
  return std::nullopt;
}

// The harness's group: the cgroup v2 mount point joined with /proc/self/cgroup's "0::" path.
std::optional<fs::path> own_group(const cgroup_sources& from, bool& hierarchy_root, std::string& why) {
  std::string relative;
  bool found = false;
  std::ifstream cgroups(from.self_cgroup);
  for (std::string line; std::getline(cgroups, line);)
    if (line.rfind("0::", 0) == 0) {
      relative = line.substr(3);
      found = true;
    }
  std::ifstream mounts(from.mounts);
  std::optional<fs::path> mount;
  for (std::string line; std::getline(mounts, line);) {
    const auto fields = words(line);
    if (fields.size() > 2 && fields[2] == "cgroup2") {
      mount = fields[1];
      break;
    }
  }
  if (!found || !mount) {
    why = "no cgroup v2 hierarchy (cgroup v1 only, or none mounted)";
    return std::nullopt;
  }
  const auto inside = fs::path(relative).relative_path();
  hierarchy_root = inside.empty();
  return hierarchy_root ? *mount : *mount / inside;
}

// memory in the group's subtree_control: already, or after the harness moved into a leaf of its
// own (a group with processes of its own cannot hand controllers to its children).
bool delegate_memory(const fs::path& group, bool hierarchy_root, pid_t self, std::string& why) {
  if (has_word(read_text(group / "cgroup.subtree_control"), "memory")) return true;
  // The hierarchy's root may hand controllers down with processes of its own (a container or VM
  // whose whole hierarchy is the harness's).
  if (hierarchy_root) {
    const auto failed = write_file(group / "cgroup.subtree_control", "+memory");
    if (failed)
      why = fmt::format("{}: cannot enable the memory controller for its children: {}", group.string(), *failed);
    return !failed;
  }
  const auto members = words(read_text(group / "cgroup.procs"));
  if (members.size() != 1 || members.front() != std::to_string(self)) {
    why = fmt::format(
        "{}: the memory controller is not in cgroup.subtree_control, and the group holds {} process(es) "
        "besides the harness (start it in a group of its own with the controller delegated, e.g. "
        "systemd-run --user --scope -p Delegate=yes)",
        group.string(), members.size() - (members.empty() ? 0 : 1));
    return false;
  }
  const auto leaf = group / fmt::format("pallasbench-harness-{}", self);
  std::error_code ec;
  fs::create_directory(leaf, ec);
  std::optional<std::string> failed;
  if (ec) failed = ec.message();
  if (!failed) failed = write_file(leaf / "cgroup.procs", std::to_string(self));
  if (!failed) failed = write_file(group / "cgroup.subtree_control", "+memory");
  if (failed)
    why = fmt::format("{}: cannot enable the memory controller for its children: {}", group.string(), *failed);
  return !failed;
}

void write_limit(const fs::path& group, std::uint64_t bytes) {
  if (const auto failed = write_file(group / "memory.max", std::to_string(bytes)))
    throw std::runtime_error(fmt::format("{}: cannot write memory.max: {}", group.string(), *failed));
  if (fs::exists(group / "memory.swap.max"))  // absent where swap is not accounted: nothing to bound
    if (const auto failed = write_file(group / "memory.swap.max", "0"))
      throw std::runtime_error(fmt::format("{}: cannot write memory.swap.max: {}", group.string(), *failed));
}

}  // namespace

cgroup_leaf::~cgroup_leaf() {
  // Its process was killed and reaped; the group empties a moment later.
  for (int attempt = 0; attempt < 20 && ::rmdir(m_path.c_str()) != 0 && errno == EBUSY; ++attempt)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

std::uint64_t cgroup_leaf::oom_kills() const {
  std::istringstream events(read_text(m_path / "memory.events"));
  std::string key;
  std::uint64_t value = 0;
  while (events >> key >> value)
    if (key == "oom_kill") return value;
  return 0;
}

std::shared_ptr<cgroup_tree> cgroup_tree::detect(std::string& why, const cgroup_sources& from) {
  const pid_t self = from.self ? from.self : ::getpid();
  bool hierarchy_root = false;
  const auto group = own_group(from, hierarchy_root, why);
  if (!group) return nullptr;
  const auto controllers = read_text(*group / "cgroup.controllers");
  if (!has_word(controllers, "memory")) {
    why = fmt::format("{}: the memory controller is not available there (cgroup.controllers: '{}')", group->string(),
                      words(controllers).empty() ? "" : controllers.substr(0, controllers.find('\n')));
    return nullptr;
  }
  if (::access(group->c_str(), W_OK) != 0) {
    why = fmt::format("{}: not writable by the harness: {}", group->string(), std::strerror(errno));
    return nullptr;
  }
  if (!delegate_memory(*group, hierarchy_root, self, why)) return nullptr;
  const auto probe = *group / fmt::format("pallasbench-probe-{}", self);
  try {
    std::error_code ec;
    fs::create_directory(probe, ec);
    if (ec) throw std::runtime_error(fmt::format("{}: cannot create a group: {}", probe.string(), ec.message()));
    write_limit(probe, k_probe_bytes);
  } catch (const std::exception& e) {
    why = e.what();
    ::rmdir(probe.c_str());
    return nullptr;
  }
  ::rmdir(probe.c_str());
  return std::shared_ptr<cgroup_tree>(new cgroup_tree(*group));
}

std::unique_ptr<cgroup_leaf> cgroup_tree::place(pid_t pid, const std::string& name, std::uint64_t bytes) const {
  const auto path = m_root / name;
  std::error_code ec;
  fs::create_directory(path, ec);
  if (ec) throw std::runtime_error(fmt::format("{}: cannot create the group: {}", path.string(), ec.message()));
  auto leaf = std::make_unique<cgroup_leaf>(path);
  write_limit(path, bytes);
  if (const auto failed = write_file(path / "cgroup.procs", std::to_string(pid)))
    throw std::runtime_error(fmt::format("{}: cannot move process {} into it: {}", path.string(), pid, *failed));
  return leaf;
}

}  // namespace pallasbench
