#include "pallasbench/orchestrate/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <thread>

#include <fmt/format.h>

#include "pallasbench/core/interrupt.hpp"

extern char** environ;

namespace pallasbench {
namespace {

std::string signal_name(int sig) {
  const char* name = sigabbrev_np(sig);
  return name ? fmt::format("SIG{}", name) : "unknown";
}

exit_status decode(int status) {
  exit_status out;
  if (WIFSIGNALED(status)) {
    out.signaled = true;
    out.signal = WTERMSIG(status);
  } else {
    out.code = WEXITSTATUS(status);
  }
  return out;
}

std::vector<std::string> merged_environment(const std::vector<std::pair<std::string, std::string>>& extra,
                                            bool inherit) {
  std::map<std::string, std::string> env;
  for (char** e = environ; inherit && *e; ++e) {
    const std::string_view entry(*e);
    const auto eq = entry.find('=');
    if (eq != std::string_view::npos) env[std::string(entry.substr(0, eq))] = std::string(entry.substr(eq + 1));
  }
  for (const auto& [key, value] : extra) env[key] = value;
  std::vector<std::string> out;
  for (const auto& [key, value] : env) out.push_back(key + "=" + value);
  return out;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

struct pipe_pair {
  int read = -1, write = -1;
  pipe_pair() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw process_error(fmt::format("pipe: {}", std::strerror(errno)));
    read = fds[0];
    write = fds[1];
  }
};

// argv[0] as execve needs it: searched on PATH when it names no folder.
std::string resolve_program(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  const char* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "/usr/bin:/bin";
  while (!dirs.empty()) {
    const auto colon = dirs.find(':');
    const auto candidate = std::filesystem::path(dirs.substr(0, colon)) / program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    if (colon == std::string_view::npos) break;
    dirs.remove_prefix(colon + 1);
  }
  throw process_error(fmt::format("cannot start '{}': not found on PATH", program));
}

}  // namespace

std::string exit_status::describe() const {
  return signaled ? fmt::format("signal {} ({})", signal, signal_name(signal)) : fmt::format("exit code {}", code);
}

void child_process::spawn_sandboxed(const options& opts) {
  pipe_pair in, out, err;
  detail::sandbox_spawn spawn{opts.argv, merged_environment(opts.env, opts.inherit_env), in.read, out.write, err.write};
  spawn.argv.front() = resolve_program(spawn.argv.front());
  sandbox_report report;
  try {
    m_pid = detail::spawn_sandboxed(spawn, *opts.sandbox, report);
  } catch (...) {
    for (const int fd : {in.read, in.write, out.read, out.write, err.read, err.write}) ::close(fd);
    throw;
  }
  for (const int fd : {in.read, out.write, err.write}) ::close(fd);
  m_stdin = in.write;
  m_stdout = out.read;
  m_stderr_fd = err.read;
  m_sandbox = report;
}

child_process::child_process(const options& opts) : m_stderr_limit(opts.stderr_tail_bytes) {
  if (opts.argv.empty()) throw process_error("no command to start");
  if (opts.sandbox) {
    spawn_sandboxed(opts);
    return;
  }
  pipe_pair in, out, err;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.read, 0);
  posix_spawn_file_actions_adddup2(&actions, out.write, 1);
  posix_spawn_file_actions_adddup2(&actions, err.write, 2);
  if (!opts.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, opts.cwd.c_str());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setpgroup(&attr, 0);  // own process group: killable as one, deaf to our Ctrl-C
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
  auto argv_strings = opts.argv;
  auto env_strings = merged_environment(opts.env, opts.inherit_env);
  auto argv = c_strings(argv_strings);
  auto envp = c_strings(env_strings);
  const int rc = ::posix_spawnp(&m_pid, argv[0], &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  for (const int fd : {in.read, out.write, err.write}) ::close(fd);
  m_stdin = in.write;
  m_stdout = out.read;
  m_stderr_fd = err.read;
  if (rc != 0) {
    close_fds();
    m_pid = -1;
    throw process_error(fmt::format("cannot start '{}': {}", opts.argv[0], std::strerror(rc)));
  }
}

child_process::~child_process() {
  if (m_pid > 0 && !m_exit) kill_and_wait();
  close_fds();
}

void child_process::close_fds() {
  for (int* fd : {&m_stdin, &m_stdout, &m_stderr_fd}) {
    if (*fd >= 0) ::close(*fd);
    *fd = -1;
  }
}

namespace {

// Blocks SIGPIPE on this thread while alive, so writing to a dead child is EPIPE, not our death
// (MSG_NOSIGNAL does not apply to pipes); a SIGPIPE raised meanwhile is consumed, not delivered.
class sigpipe_guard {
public:
  sigpipe_guard() {
    sigemptyset(&m_pipe);
    sigaddset(&m_pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &m_pipe, &m_old);
  }
  ~sigpipe_guard() {
    const timespec no_wait{0, 0};
    while (sigtimedwait(&m_pipe, nullptr, &no_wait) > 0) {
    }
    pthread_sigmask(SIG_SETMASK, &m_old, nullptr);
  }
  sigpipe_guard(const sigpipe_guard&) = delete;
  sigpipe_guard& operator=(const sigpipe_guard&) = delete;

private:
  sigset_t m_pipe{}, m_old{};
};

}  // namespace

void child_process::write_line(std::string_view line) {
  std::string data(line);
  data.push_back('\n');
  const sigpipe_guard guard;
  std::size_t written = 0;
  while (written < data.size()) {
    const ssize_t n = ::write(m_stdin, data.data() + written, data.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw process_error(fmt::format("writing to process {}: {}", m_pid, std::strerror(errno)));
    }
    written += static_cast<std::size_t>(n);
  }
}

void child_process::drain_stderr() {
  char buffer[8192];
  const ssize_t n = ::read(m_stderr_fd, buffer, sizeof buffer);
  if (n <= 0) {
    if (n == 0) {
      ::close(m_stderr_fd);
      m_stderr_fd = -1;
    }
    return;
  }
  m_stderr.append(buffer, static_cast<std::size_t>(n));
  if (m_stderr.size() > m_stderr_limit) m_stderr.erase(0, m_stderr.size() - m_stderr_limit);
}

child_process::read_status child_process::read_line(std::string& line, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (const auto eol = m_stdout_buffer.find('\n'); eol != std::string::npos) {
      line = m_stdout_buffer.substr(0, eol);
      m_stdout_buffer.erase(0, eol + 1);
      return read_status::line;
    }
    if (m_stdout < 0) return read_status::eof;
    if (interrupted()) return read_status::interrupted;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return read_status::timeout;
    pollfd fds[2] = {{m_stdout, POLLIN, 0}, {m_stderr_fd, POLLIN, 0}};
    const int ready = ::poll(fds, m_stderr_fd >= 0 ? 2 : 1, static_cast<int>(std::min<long>(left.count(), 200)));
    if (ready < 0) {
      if (errno == EINTR) continue;
      throw process_error(fmt::format("poll: {}", std::strerror(errno)));
    }
    if (m_stderr_fd >= 0 && (fds[1].revents & (POLLIN | POLLHUP))) drain_stderr();
    if (fds[0].revents & (POLLIN | POLLHUP)) {
      char buffer[65536];
      const ssize_t n = ::read(m_stdout, buffer, sizeof buffer);
      if (n > 0) {
        m_stdout_buffer.append(buffer, static_cast<std::size_t>(n));
      } else if (n == 0) {
        ::close(m_stdout);
        m_stdout = -1;
      }
    }
  }
}

void child_process::drain_remaining_stderr() {
  // What the child wrote before it ended is still in the pipe: it explains the ending.
  while (m_stderr_fd >= 0) {
    pollfd fd{m_stderr_fd, POLLIN, 0};
    if (::poll(&fd, 1, 50) <= 0) break;
    drain_stderr();
  }
}

void child_process::signal_kill() {
  if (m_pid > 0 && !m_exit) ::kill(-m_pid, SIGKILL);
}

exit_status child_process::kill_and_wait() {
  if (m_exit) return *m_exit;
  ::kill(-m_pid, SIGKILL);
  int status = 0;
  while (::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
  }
  drain_remaining_stderr();
  m_exit = decode(status);
  return *m_exit;
}

std::optional<exit_status> child_process::wait_for_exit(std::chrono::milliseconds timeout) {
  if (m_exit) return m_exit;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    int status = 0;
    const pid_t done = ::waitpid(m_pid, &status, WNOHANG);
    if (done == m_pid) {
      ::kill(-m_pid, SIGKILL);  // whatever the child left behind in its group
      drain_remaining_stderr();
      m_exit = decode(status);
      return m_exit;
    }
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace pallasbench
