#include "pallasbench/orchestrate/sandbox.hpp"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "pallasbench/orchestrate/memory_limits.hpp"
#include "pallasbench/orchestrate/subprocess.hpp"

namespace pallasbench {
namespace {

// Landlock's kernel ABI, written out here: Debian 12's linux-libc-dev headers stop at ABI 1, and
// the values are a stable kernel interface (Documentation/userspace-api/landlock.rst).
namespace landlock {
constexpr std::uint64_t execute = 1ULL << 0, write_file = 1ULL << 1, read_file = 1ULL << 2, read_dir = 1ULL << 3;
constexpr std::uint64_t abi1_fs = (1ULL << 13) - 1;  // execute .. make_sym
constexpr std::uint64_t refer = 1ULL << 13, truncate = 1ULL << 14, ioctl_dev = 1ULL << 15;
constexpr std::uint64_t file_rights = execute | write_file | read_file | truncate | ioctl_dev;
constexpr std::uint64_t net_bind_tcp = 1ULL << 0, net_connect_tcp = 1ULL << 1;
constexpr std::uint64_t scope_abstract_unix_socket = 1ULL << 0, scope_signal = 1ULL << 1;
constexpr unsigned create_ruleset_version = 1U << 0;
constexpr int rule_path_beneath = 1;
struct ruleset_attr {
  std::uint64_t handled_access_fs, handled_access_net, scoped;
};
struct __attribute__((packed)) path_beneath_attr {
  std::uint64_t allowed_access;
  std::int32_t parent_fd;
};

int abi() {
#ifdef SYS_landlock_create_ruleset
  const long v = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, create_ruleset_version);
  return v > 0 ? static_cast<int>(v) : 0;
#else
  return 0;
#endif
}

std::uint64_t handled_fs(int abi) {
  std::uint64_t fs = abi1_fs;
  if (abi >= 2) fs |= refer;
  if (abi >= 3) fs |= truncate;
  if (abi >= 5) fs |= ioctl_dev;
  return fs;
}
}  // namespace landlock

// Steps the child reports on, one bit each (failures carry their errno).
enum step : unsigned {
  step_fds = 0,
  step_user_maps,
  step_mount_private,
  step_masks,
  step_proc,
  step_workdir,
  step_rlimits,
  step_no_new_privs,
  step_landlock,
  step_exec,
  step_count
};
constexpr std::array<const char*, step_count> k_step_names = {"closing inherited file descriptors",
                                                              "user namespace id maps",
                                                              "private mount propagation",
                                                              "private /tmp and /dev/shm",
                                                              "private /proc",
                                                              "working folder",
                                                              "rlimits",
                                                              "no_new_privs",
                                                              "Landlock",
                                                              "exec"};

// Written by the child into the status pipe before exec (no allocation after clone).
struct child_status {
  unsigned done = 0;  // bit per step that succeeded
  std::array<int, step_count> error{};
};

// Everything the child reads, prepared by the parent as C strings.
struct child_plan {
  std::vector<char*> argv, envp;
  std::vector<const char*> readable, masked;
  // Readable trees under a masked folder (a checkout in /tmp): bound back into the private tmpfs.
  std::vector<const char*> rebound;
  const char* workdir = nullptr;
  // mount options of the private /tmp and /dev/shm, and of the other masks (/run, /var/tmp)
  std::string scratch_tmpfs, small_tmpfs;
  std::string uid_map, gid_map;
  bool user_namespace = false, mount_namespace = false;
  int landlock_abi = 0;
  int stdin_fd = -1, stdout_fd = -1, stderr_fd = -1, status_fd = -1;
  const sandbox_policy* policy = nullptr;
};

bool write_file(const char* path, const std::string& text) {
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok;
}

void mark(child_status& s, step which, bool ok) {
  if (ok)
    s.done |= 1U << which;
  else
    s.error[which] = errno ? errno : EINVAL;
}

bool set_rlimits(const sandbox_policy& p) {
  const std::array<std::pair<int, std::uint64_t>, 7> limits = {{{RLIMIT_AS, p.address_space_bytes},
                                                                {RLIMIT_DATA, p.data_bytes},
                                                                {RLIMIT_CPU, p.cpu_seconds},
                                                                {RLIMIT_FSIZE, p.file_size_bytes},
                                                                {RLIMIT_NOFILE, p.open_files},
                                                                {RLIMIT_NPROC, p.processes},
                                                                {RLIMIT_CORE, 0}}};
  for (const auto& [resource, value] : limits) {
    const rlimit limit{value, value};
    if (::setrlimit(resource, &limit) != 0) return false;
  }
  return true;
}

bool add_rule(int ruleset, const char* path, std::uint64_t access) {
  const int fd = ::open(path, O_PATH | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT;  // a listed tree this machine lacks is no failure
  struct stat st {};
  if (::fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode)) access &= landlock::file_rights;
  const landlock::path_beneath_attr rule{access, fd};
  const bool ok = ::syscall(SYS_landlock_add_rule, ruleset, landlock::rule_path_beneath, &rule, 0) == 0;
  ::close(fd);
  return ok;
}

bool restrict_with_landlock(const child_plan& plan, bool private_tmp) {
#ifdef SYS_landlock_create_ruleset
  const int abi = plan.landlock_abi;
  if (abi <= 0) return false;
  landlock::ruleset_attr attr{landlock::handled_fs(abi), 0, 0};
  std::size_t size = sizeof(std::uint64_t);
  if (abi >= 4) {
    attr.handled_access_net = landlock::net_bind_tcp | landlock::net_connect_tcp;  // no rule: no TCP
    size = 2 * sizeof(std::uint64_t);
  }
  if (abi >= 6) {
    attr.scoped = landlock::scope_abstract_unix_socket | landlock::scope_signal;
    size = sizeof attr;
  }
  const int ruleset = static_cast<int>(::syscall(SYS_landlock_create_ruleset, &attr, size, 0U));
  if (ruleset < 0) return false;
  const std::uint64_t read = landlock::read_file | landlock::read_dir | landlock::execute;
  const std::uint64_t all = attr.handled_access_fs;
  bool ok = true;
  for (const char* path : plan.readable) ok = ok && add_rule(ruleset, path, read);
  for (const char* dev : {"/dev/null", "/dev/zero", "/dev/full", "/dev/urandom", "/dev/random"})
    ok = ok && add_rule(ruleset, dev, landlock::read_file | landlock::write_file);
  ok = ok && add_rule(ruleset, plan.workdir, all);
  if (private_tmp)
    for (const char* path : {"/tmp", "/dev/shm"}) ok = ok && add_rule(ruleset, path, all);
  ok = ok && ::syscall(SYS_landlock_restrict_self, ruleset, 0U) == 0;
  ::close(ruleset);
  return ok;
#else
  (void)plan;
  (void)private_tmp;
  return false;
#endif
}

// mkdir -p of `path`'s folders, into a copy on the stack (no allocation after clone).
bool make_folders(const char* path) {
  char buffer[4096];
  const std::size_t n = std::strlen(path);
  if (n + 1 > sizeof buffer) return false;
  std::memcpy(buffer, path, n + 1);
  for (std::size_t i = 1; i <= n; ++i) {
    if (buffer[i] != '/' && buffer[i] != '\0') continue;
    const char saved = buffer[i];
    buffer[i] = '\0';
    if (::mkdir(buffer, 0755) != 0 && errno != EEXIST) return false;
    buffer[i] = saved;
  }
  return true;
}

// "/proc/self/fd/N" for `fd`, without allocation.
void fd_path(int fd, char (&out)[32]) {
  char digits[12];
  int count = 0;
  do {
    digits[count++] = static_cast<char>('0' + fd % 10);
    fd /= 10;
  } while (fd > 0 && count < 11);
  std::memcpy(out, "/proc/self/fd/", 14);
  for (int i = 0; i < count; ++i) out[14 + i] = digits[count - 1 - i];
  out[14 + count] = '\0';
}

// Masks each folder with an empty tmpfs, binding back the readable trees that lie under one.
bool mask_folders(const child_plan& plan) {
  std::array<int, 16> held{};
  const std::size_t rebound = std::min(plan.rebound.size(), held.size());
  for (std::size_t i = 0; i < rebound; ++i) held[i] = ::open(plan.rebound[i], O_PATH | O_DIRECTORY | O_CLOEXEC);
  bool ok = rebound == plan.rebound.size();
  for (const char* path : plan.masked) {
    struct stat st {};
    const bool scratch = std::strcmp(path, "/tmp") == 0 || std::strcmp(path, "/dev/shm") == 0;
    if (ok && ::stat(path, &st) == 0)
      ok = ::mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV,
                   (scratch ? plan.scratch_tmpfs : plan.small_tmpfs).c_str()) == 0;
  }
  for (std::size_t i = 0; i < rebound; ++i) {
    char source[32];
    fd_path(held[i], source);
    ok = ok && held[i] >= 0 && make_folders(plan.rebound[i]) &&
         ::mount(source, plan.rebound[i], nullptr, MS_BIND | MS_REC, nullptr) == 0;
    if (held[i] >= 0) ::close(held[i]);
  }
  return ok;
}

// The child, between clone and exec: system calls only, on memory the parent prepared.
int child_main(void* arg) {
  const auto& plan = *static_cast<const child_plan*>(arg);
  child_status status;
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // the harness gone: the namespace goes with it
  ::setpgid(0, 0);
  ::dup2(plan.stdin_fd, 0);
  ::dup2(plan.stdout_fd, 1);
  ::dup2(plan.stderr_fd, 2);
  ::dup2(plan.status_fd, 3);
  ::fcntl(3, F_SETFD, FD_CLOEXEC);
  mark(status, step_fds, ::syscall(SYS_close_range, 4U, ~0U, 0U) == 0);
  if (plan.user_namespace)
    mark(status, step_user_maps,
         write_file("/proc/self/setgroups", "deny") && write_file("/proc/self/uid_map", plan.uid_map) &&
             write_file("/proc/self/gid_map", plan.gid_map));
  bool private_tmp = false;
  if (plan.mount_namespace) {
    const bool is_private = ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0;
    mark(status, step_mount_private, is_private);
    const bool masked = is_private && mask_folders(plan);
    mark(status, step_masks, masked);
    private_tmp = masked;
    mark(status, step_proc,
         is_private && ::mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) == 0);
  }
  mark(status, step_workdir, (::mkdir(plan.workdir, 0700) == 0 || errno == EEXIST) && ::chdir(plan.workdir) == 0);
  mark(status, step_rlimits, set_rlimits(*plan.policy));
  mark(status, step_no_new_privs, ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0);
  mark(status, step_landlock, restrict_with_landlock(plan, private_tmp));
  if (!(status.done & (1U << step_workdir))) {  // nowhere to run: report and give up
    (void)!::write(3, &status, sizeof status);
    ::_exit(127);
  }
  (void)!::write(3, &status, sizeof status);
  ::execve(plan.argv[0], plan.argv.data(), plan.envp.data());
  mark(status, step_exec, false);
  (void)!::write(3, &status, sizeof status);
  ::_exit(127);
}

std::vector<char*> c_array(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (const auto& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

// A unique working folder name per tracer (created by the child, inside its private /tmp).
std::string workdir_name(const std::filesystem::path& base) {
  static std::atomic<unsigned> counter{0};
  return fmt::format("{}-{}-{}", base.string(), ::getpid(), counter++);
}

struct namespace_choice {
  int flags;
  bool user;
};

// Most isolation first; the OS may refuse user namespaces (sysctl) or all of them (no privilege).
constexpr std::array<namespace_choice, 3> k_choices = {{
    {CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC, true},
    {CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC, false},
    {0, false},
}};

void describe_missing(sandbox_report& report, const child_status& status, bool user_ns, bool mount_ns) {
  std::string missing;
  auto note = [&](const std::string& what) { missing += (missing.empty() ? "" : "; ") + what; };
  if (!report.pid_namespace) note("no PID, mount, network or IPC namespace (the OS refused them)");
  if (!user_ns) note("no user namespace");
  for (unsigned s = 0; s < step_count; ++s)
    if (status.error[s]) note(fmt::format("{}: {}", k_step_names[s], std::strerror(status.error[s])));
  if (!mount_ns) note("private /tmp, /dev/shm and /proc need a mount namespace");
  if (report.landlock_abi == 0) note("Landlock is not available in this kernel");
  report.missing = missing;
}

}  // namespace

nlohmann::json sandbox_report::to_json() const {
  return {{"user_namespace", user_namespace},
          {"pid_namespace", pid_namespace},
          {"network_namespace", network_namespace},
          {"mount_namespace", mount_namespace},
          {"ipc_namespace", ipc_namespace},
          {"private_tmp", private_tmp},
          {"tmpfs_bytes", tmpfs_bytes},
          {"private_proc", private_proc},
          {"fds_closed", fds_closed},
          {"rlimits", rlimits},
          {"no_new_privs", no_new_privs},
          {"landlock_abi", landlock_abi},
          {"landlock", landlock},
          {"missing", missing.empty() ? nlohmann::json(nullptr) : nlohmann::json(missing)}};
}

namespace detail {

pid_t spawn_sandboxed(const sandbox_spawn& spawn, const sandbox_policy& policy, sandbox_report& report) {
  child_plan plan;
  plan.argv = c_array(spawn.argv);
  plan.envp = c_array(spawn.env);
  std::vector<std::string> readable, masked;
  for (const auto& p : policy.readable) readable.push_back(p.string());
  for (const auto& p : policy.masked) masked.push_back(p.string());
  for (const auto& s : readable) plan.readable.push_back(s.c_str());
  for (const auto& s : masked) plan.masked.push_back(s.c_str());
  std::vector<std::string> rebound;
  for (const auto& r : readable)
    for (const auto& m : masked)
      if (r.size() > m.size() && r.compare(0, m.size(), m) == 0 && r[m.size()] == '/' &&
          std::filesystem::is_directory(r))
        rebound.push_back(r);
  for (const auto& s : rebound) plan.rebound.push_back(s.c_str());
  const std::string workdir = workdir_name(policy.workdir);
  plan.workdir = workdir.c_str();
  plan.scratch_tmpfs = fmt::format("mode=1777,size={}", policy.tmpfs_bytes);
  plan.small_tmpfs = fmt::format("mode=1777,size={}", k_small_tmpfs);
  plan.uid_map = fmt::format("0 {} 1\n", ::getuid());
  plan.gid_map = fmt::format("0 {} 1\n", ::getgid());
  plan.landlock_abi = landlock::abi();
  plan.policy = &policy;
  plan.stdin_fd = spawn.stdin_fd;
  plan.stdout_fd = spawn.stdout_fd;
  plan.stderr_fd = spawn.stderr_fd;
  int status_pipe[2];
  if (::pipe2(status_pipe, O_CLOEXEC) != 0) throw process_error(fmt::format("pipe: {}", std::strerror(errno)));
  plan.status_fd = status_pipe[1];
  constexpr std::size_t stack_size = 1 << 20;
  void* stack = ::mmap(nullptr, stack_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED) throw process_error(fmt::format("mmap: {}", std::strerror(errno)));
  pid_t pid = -1;
  namespace_choice chosen{};
  for (const auto& choice : k_choices) {
    plan.user_namespace = choice.user;
    plan.mount_namespace = (choice.flags & CLONE_NEWNS) != 0;
    pid = ::clone(child_main, static_cast<char*>(stack) + stack_size, choice.flags | SIGCHLD, &plan);
    if (pid > 0) {
      chosen = choice;
      break;
    }
  }
  const int clone_errno = errno;
  ::munmap(stack, stack_size);  // the child runs on its own copy of the address space
  ::close(status_pipe[1]);
  if (pid <= 0) {
    ::close(status_pipe[0]);
    throw process_error(fmt::format("cannot start a sandboxed '{}': {}", spawn.argv.at(0), std::strerror(clone_errno)));
  }
  child_status status, last;
  std::size_t reports = 0;
  while (::read(status_pipe[0], &last, sizeof last) == static_cast<ssize_t>(sizeof last)) {
    status = last;
    ++reports;
  }
  ::close(status_pipe[0]);
  const auto ok = [&](step s) { return (status.done & (1U << s)) != 0; };
  report.user_namespace = chosen.user && ok(step_user_maps);
  report.pid_namespace = report.ipc_namespace = report.network_namespace = (chosen.flags & CLONE_NEWPID) != 0;
  report.mount_namespace = (chosen.flags & CLONE_NEWNS) != 0 && ok(step_mount_private);
  report.private_tmp = ok(step_masks);
  report.tmpfs_bytes = report.private_tmp ? policy.tmpfs_bytes : 0;
  report.private_proc = ok(step_proc);
  report.fds_closed = ok(step_fds);
  report.rlimits = ok(step_rlimits);
  report.no_new_privs = ok(step_no_new_privs);
  report.landlock_abi = plan.landlock_abi;
  report.landlock = ok(step_landlock);
  describe_missing(report, status, report.user_namespace, report.mount_namespace);
  if (reports == 0 || status.error[step_exec] || !ok(step_workdir))
    report.missing += fmt::format("{}the sandboxed process did not start", report.missing.empty() ? "" : "; ");
  return pid;
}

}  // namespace detail
}  // namespace pallasbench
