// A child process in its own process group, with pipes to its stdin, stdout and stderr.
#pragma once

#include "pallasbench/core/error.hpp"
#include "pallasbench/core/utf8.hpp"

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pallasbench/orchestrate/sandbox.hpp"

namespace pallasbench {

class process_error : public error {
public:
  using error::error;
};

struct exit_status {
  bool signaled = false;
  int code = 0;                                // exit code when not signaled
  int signal = 0;                              // terminating signal when signaled
  [[nodiscard]] std::string describe() const;  // "exit code 3", "signal 9 (SIGKILL)"
};

// RAII: the destructor kills the whole process group and reaps the child.
class child_process {
public:
  struct options {
    std::vector<std::string> argv;
    std::vector<std::pair<std::string, std::string>> env;  // added to (or replacing in) ours
    std::filesystem::path cwd;                             // ignored when sandboxed (its own empty folder)
    std::size_t stderr_tail_bytes = 64 * 1024;
    bool inherit_env = true;                // false: exactly `env` (a scrubbed environment)
    std::optional<sandbox_policy> sandbox;  // set: start in a sandbox (sandbox.hpp)
  };

  enum class read_status { line, timeout, eof, interrupted };

  explicit child_process(const options& opts);
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;
  ~child_process();

  [[nodiscard]] pid_t pid() const { return m_pid; }
  // What the sandbox got, for a sandboxed child.
  [[nodiscard]] const std::optional<sandbox_report>& sandbox() const { return m_sandbox; }

  // Writes `line` and a newline to the child's stdin; throws process_error if the pipe is closed.
  void write_line(std::string_view line);

  // Reads one line of stdout (without the newline), draining stderr meanwhile.
  read_status read_line(std::string& line, std::chrono::milliseconds timeout);

  // The last bytes the child wrote to stderr.
  // As valid UTF-8 (a child may write any bytes; the tail may start mid-character).
  [[nodiscard]] std::string stderr_tail() const { return valid_utf8(m_stderr); }
  void clear_stderr_tail() { m_stderr.clear(); }

  // SIGKILL to the process group, then reap: the status says how the child ended.
  exit_status kill_and_wait();
  // SIGKILL to the process group without reaping (kill_and_wait or the destructor does): a caller
  // ending many children signals them all first, so that their exits overlap.
  void signal_kill();

  // Reaps the child if it has exited within `timeout`.
  std::optional<exit_status> wait_for_exit(std::chrono::milliseconds timeout);

private:
  void spawn_sandboxed(const options& opts);
  void drain_stderr();
  void drain_remaining_stderr();
  void close_fds();

  pid_t m_pid = -1;
  int m_stdin = -1, m_stdout = -1, m_stderr_fd = -1;
  std::string m_stdout_buffer;
  std::string m_stderr;
  std::size_t m_stderr_limit;
  std::optional<exit_status> m_exit;
  std::optional<sandbox_report> m_sandbox;
};

}  // namespace pallasbench
