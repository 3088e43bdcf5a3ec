#include "detail/python_tool.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "pallasbench/core/error.hpp"
#include "pallasbench/orchestrate/paths.hpp"

namespace pallasbench {
namespace {

// `input` in an anonymous in-memory file that becomes stdin, and outlives the exec.
void stdin_from(std::string_view input, std::string_view module) {
  const int fd = ::memfd_create("pallasbench-tool-input", 0);
  const auto fail = [&](std::string_view what) {
    throw error(fmt::format("cannot {} the input of pallasbench.tools.{}: {}", what, module, std::strerror(errno)));
  };
  if (fd < 0) fail("create");
  for (std::size_t written = 0; written < input.size();) {
    const ssize_t n = ::write(fd, input.data() + written, input.size() - written);
    if (n < 0 && errno != EINTR) fail("write");
    if (n > 0) written += static_cast<std::size_t>(n);
  }
  if (::lseek(fd, 0, SEEK_SET) != 0 || ::dup2(fd, STDIN_FILENO) < 0) fail("pass on");
  ::close(fd);
}

}  // namespace

void exec_python_tool(std::string_view module, const std::vector<std::string>& args, std::string_view input) {
  if (!input.empty()) stdin_from(input, module);
  const auto root = project_root();
  if (::setenv("PYTHONPATH", project_python_path(root).c_str(), 1) != 0 ||
      ::setenv("PALLASBENCH_ROOT", root.c_str(), 1) != 0)
    throw error(fmt::format("cannot set the environment of pallasbench.tools.{}: {}", module, std::strerror(errno)));
  // The tool asks this very binary what it needs of the harness (pallasbench.filters: the registry).
  std::error_code unreadable;
  if (const auto self = std::filesystem::read_symlink("/proc/self/exe", unreadable); !unreadable)
    ::setenv("PALLASBENCH_BINARY", self.c_str(), 1);
  const auto python = python_executable(root).string();
  std::vector<std::string> argv{python, "-m", fmt::format("pallasbench.tools.{}", module)};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> pointers;
  for (auto& arg : argv) pointers.push_back(arg.data());
  pointers.push_back(nullptr);
  ::execvp(pointers[0], pointers.data());
  throw error(fmt::format("cannot start {} for pallasbench.tools.{}: {}", python, module, std::strerror(errno)));
}

}  // namespace pallasbench
