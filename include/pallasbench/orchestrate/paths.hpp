// Where things are: the project tree, its Python, scratch space, output folders.
#pragma once

#include <filesystem>
#include <string>

namespace pallasbench {

// The folder holding python/pallasbench and tasks/: $PALLASBENCH_ROOT, else the parent of the
// executable's folder (build/..), else the source folder this binary was configured from.
[[nodiscard]] std::filesystem::path project_root();

// A file's path as a record keeps it, never absolute (a record is read on other machines): relative
// to the project root when the file is under it ("tests/candidates/x.py"), else relative to the
// working directory when under that, else the file's name alone.
[[nodiscard]] std::string portable_path(const std::filesystem::path& path);

// $PALLASBENCH_PYTHON, else <root>/.venv/bin/python when it exists, else python3 on PATH.
[[nodiscard]] std::filesystem::path python_executable(const std::filesystem::path& root);

// PYTHONPATH for the project's unsandboxed Python processes: <root>/python, then the user's
// $PYTHONPATH (a `pip install --target` folder, say), extended rather than replaced.
[[nodiscard]] std::string project_python_path(const std::filesystem::path& root);

// libpallasbench_timer.so beside this executable (empty when it was not built).
[[nodiscard]] std::filesystem::path timer_library();

// results/<UTC timestamp> under the current directory.
[[nodiscard]] std::filesystem::path default_output_dir();

[[nodiscard]] std::string utc_timestamp();  // 20261129T221500Z

// Removes the scratch folders in `base` ("pallasbench-<pid>-*", this user's) whose process is
// dead; returns how many.
std::size_t remove_stale_scratch(const std::filesystem::path& base);

// A private (0700) folder for tensors, under /dev/shm when present, named with this process's
// pid; removed with everything in it on every exit the process survives (destructor), and by the
// next run once this pid is dead (kill -9).
class scratch_dir {
public:
  scratch_dir();
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;
  ~scratch_dir();
  [[nodiscard]] const std::filesystem::path& path() const { return m_path; }
  // A fresh empty subfolder.
  [[nodiscard]] std::filesystem::path fresh(const std::string& name) const;

private:
  std::filesystem::path m_path;
};

}  // namespace pallasbench
