#include "pallasbench/paths.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <stdexcept>

#include <fmt/chrono.h>
#include <fmt/format.h>

namespace pallasbench {
namespace {

bool is_project(const std::filesystem::path& dir) {
  return std::filesystem::exists(dir / "python" / "pallasbench" / "executor.py") &&
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
      throw std::runtime_error(fmt::format("PALLASBENCH_ROOT={} holds no python/pallasbench/executor.py", env));
    return std::filesystem::absolute(env);
  }
  if (const auto dir = executable_dir(); !dir.empty() && is_project(dir.parent_path())) return dir.parent_path();
  if (is_project(PALLASBENCH_SOURCE_DIR)) return PALLASBENCH_SOURCE_DIR;
  throw std::runtime_error("cannot find the PallasBench project (python/ and tasks/): set PALLASBENCH_ROOT");
}

std::filesystem::path timer_library() {
  const auto dir = executable_dir();
  if (dir.empty()) return {};
  const auto library = dir / "libpallasbench_timer.so";
  return std::filesystem::exists(library) ? library : std::filesystem::path{};
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

scratch_dir::scratch_dir() {
  const std::filesystem::path base =
      std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : std::filesystem::temp_directory_path();
  std::string pattern = (base / "pallasbench-XXXXXX").string();
  if (!::mkdtemp(pattern.data()))
    throw std::runtime_error(fmt::format("cannot create scratch folder in {}", base.string()));
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
