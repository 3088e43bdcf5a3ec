#include "pallasbench/orchestrate/paths.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <string_view>

#include <chrono>
#include <cstdlib>
#include <stdexcept>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "pallasbench/core/error.hpp"

namespace pallasbench {
namespace {

bool is_project(const std::filesystem::path& dir) {
  return std::filesystem::exists(dir / "python" / "pallasbench" / "worker" / "executor.py") &&
         std::filesystem::is_directory(dir / "tasks");
}

// The folder of this executable (empty when /proc/self/exe cannot be read).
std::filesystem::path executable_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path{} : exe.parent_path();
}

}  // namespace

std::filesystem::path project_root() {
  if (const char* env = std::getenv("PALLASBENCH_ROOT"); env && *env) {
    if (!is_project(env))
      throw std::runtime_error(fmt::format("PALLASBENCH_ROOT={} holds no python/pallasbench/worker/executor.py", env));
    return std::filesystem::absolute(env);
  }
  if (const auto dir = executable_dir(); !dir.empty() && is_project(dir.parent_path())) return dir.parent_path();
  if (is_project(PALLASBENCH_SOURCE_DIR)) return PALLASBENCH_SOURCE_DIR;
  throw std::runtime_error("cannot find the PallasBench project (python/ and tasks/): set PALLASBENCH_ROOT");
}

std::string project_python_path(const std::filesystem::path& root) {
  std::string path = (root / "python").string();
  if (const char* user = std::getenv("PYTHONPATH"); user && *user) path += std::string(":") + user;
  return path;
}

std::filesystem::path timer_library() {
  const auto dir = executable_dir();
  if (dir.empty()) return {};
  const auto library = dir / "libpallasbench_timer.so";
  return std::filesystem::exists(library) ? library : std::filesystem::path{};
}

namespace {

// `path` relative to `base` when it lies under it (no "..", not `base` itself); none otherwise.
std::optional<std::filesystem::path> relative_under(const std::filesystem::path& path,
                                                    const std::filesystem::path& base) {
  std::error_code ec;
  const auto canonical_base = std::filesystem::weakly_canonical(base, ec);
  if (ec) return std::nullopt;
  const auto relative = path.lexically_relative(canonical_base);
  if (relative.empty() || relative == "." || *relative.begin() == "..") return std::nullopt;
  return relative;
}

}  // namespace

std::string portable_path(const std::filesystem::path& path) {
  if (path.empty() || path.is_relative()) return path.lexically_normal().string();
  std::error_code ec;
  auto canonical = std::filesystem::weakly_canonical(path, ec);
  if (ec) canonical = path.lexically_normal();
  if (const auto under_root = relative_under(canonical, project_root())) return under_root->string();
  if (const auto under_cwd = relative_under(canonical, std::filesystem::current_path(ec))) return under_cwd->string();
  return path.filename().string();
}

std::filesystem::path python_executable(const std::filesystem::path& root) {
  if (const char* env = std::getenv("PALLASBENCH_PYTHON"); env && *env) return env;
  if (const auto venv = root / ".venv" / "bin" / "python"; std::filesystem::exists(venv)) return venv;
  return "python3";
}

std::string utc_timestamp() {
  return fmt::format("{:%Y%m%dT%H%M%SZ}",
                     fmt::gmtime(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now())));
}

std::filesystem::path default_output_dir() { return std::filesystem::path("results") / utc_timestamp(); }

namespace {

constexpr std::string_view k_scratch_prefix = "pallasbench-";

// The pid in a scratch folder's name "pallasbench-<pid>-XXXXXX" (none for other names).
std::optional<pid_t> scratch_owner(const std::string& name) {
  if (!name.starts_with(k_scratch_prefix)) return std::nullopt;
  const auto digits =
      name.substr(k_scratch_prefix.size(), name.find('-', k_scratch_prefix.size()) - k_scratch_prefix.size());
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return static_cast<pid_t>(std::stol(digits));
}

}  // namespace

std::size_t remove_stale_scratch(const std::filesystem::path& base) {
  std::size_t removed = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(base, ec)) {
    const auto owner = scratch_owner(entry.path().filename().string());
    struct stat st {};
    if (!owner || ::lstat(entry.path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::getuid()) continue;
    if (::kill(*owner, 0) == 0 || errno != ESRCH) continue;  // alive (or not ours to signal): kept
    std::error_code ignored;
    if (std::filesystem::remove_all(entry.path(), ignored) > 0) ++removed;
  }
  return removed;
}

scratch_dir::scratch_dir() {
  const std::filesystem::path base =
      std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : std::filesystem::temp_directory_path();
  // Folders of runs killed with -9 hold inputs and reference outputs: gone once their pid is.
  (void)remove_stale_scratch(base);
  std::string pattern = (base / fmt::format("{}{}-XXXXXX", k_scratch_prefix, ::getpid())).string();
  if (!::mkdtemp(pattern.data()))  // mode 0700: private to this user
    throw error(fmt::format("cannot create scratch folder in {}: {}", base.string(), std::strerror(errno)));
  m_path = pattern;
}

scratch_dir::~scratch_dir() {
  std::error_code ec;
  std::filesystem::remove_all(m_path, ec);
}

std::filesystem::path scratch_dir::fresh(const std::string& name) const {
  const auto dir = m_path / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace pallasbench
