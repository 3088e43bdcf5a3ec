// The sandbox an untrusted tracer runs in: namespaces, a private /tmp, Landlock, rlimits.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pallasbench {

struct sandbox_policy {
  // Trees the process may read and execute (Landlock); everything else is unreadable, and
  // nothing is writable but the private /tmp and /dev/shm.
  std::vector<std::filesystem::path> readable;
  // Trees hidden behind an empty private tmpfs in the process's mount namespace: the run's
  // scratch folders (/dev/shm, /tmp) and sockets of the host's daemons (/run).
  std::vector<std::filesystem::path> masked = {"/tmp", "/dev/shm", "/run", "/var/tmp"};
  std::filesystem::path workdir = "/tmp/work";  // inside the private /tmp; the working folder
  // RLIMIT_DATA (heap, stacks, private mappings) and RLIMIT_AS (everything mapped): the tracer's
  // memory share less its tmpfs, and that with the libraries JAX maps (memory_limits.hpp); a
  // cgroup, where there is one, bounds its pages instead.
  std::uint64_t data_bytes = std::uint64_t{32} << 30;
  std::uint64_t address_space_bytes = std::uint64_t{32} << 30;
  // size= of the private /tmp and /dev/shm each (/run and /var/tmp get k_small_tmpfs): tmpfs
  // pages are memory, so they are part of the tracer's share.
  std::uint64_t tmpfs_bytes = std::uint64_t{256} << 20;
  std::uint64_t cpu_seconds = 600;
  std::uint64_t file_size_bytes = std::uint64_t{1} << 30;
  std::uint64_t open_files = 1024;
  std::uint64_t processes = 4096;
};

// What the sandbox actually got on this machine (each part is tried; a part the OS refuses is
// recorded as missing, never silently assumed).
struct sandbox_report {
  bool user_namespace = false;
  bool pid_namespace = false;
  bool network_namespace = false;
  bool mount_namespace = false;
  bool ipc_namespace = false;
  bool private_tmp = false;       // every masked tree covered by a private tmpfs
  std::uint64_t tmpfs_bytes = 0;  // the size of its /tmp and of its /dev/shm, when private
  bool private_proc = false;
  bool fds_closed = false;
  bool rlimits = false;
  bool no_new_privs = false;
  int landlock_abi = 0;  // 0: no Landlock
  bool landlock = false;
  std::string missing;  // what could not be set up, and why
  [[nodiscard]] nlohmann::json to_json() const;
};

namespace detail {

// What the child needs from the parent to start the sandboxed program.
struct sandbox_spawn {
  std::vector<std::string> argv;  // argv[0] an absolute path
  std::vector<std::string> env;   // the whole environment ("KEY=value")
  int stdin_fd = -1, stdout_fd = -1, stderr_fd = -1;
};

// Starts the program in a new PID, mount, network, IPC (and, when not root, user) namespace,
// falling back to fewer namespaces where the OS refuses them. The child is the namespace's
// init: killing it kills everything it started. Throws process_error when nothing can start.
pid_t spawn_sandboxed(const sandbox_spawn& spawn, const sandbox_policy& policy, sandbox_report& report);

}  // namespace detail
}  // namespace pallasbench
