#include "pallasbench/orchestrate/sandbox.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "pallasbench/orchestrate/subprocess.hpp"

namespace pallasbench {
namespace {

using namespace std::chrono_literals;

sandbox_policy shell_policy() {
  sandbox_policy p;
  p.readable = {"/usr", "/bin", "/lib", "/lib64", "/etc", "/proc", "/sys"};
  p.cpu_seconds = 30;
  return p;
}

// Runs `script` with /bin/sh in the sandbox; returns what it printed.
std::string run_sandboxed(const std::string& script, sandbox_report* report = nullptr) {
  child_process::options o;
  o.argv = {"/bin/sh", "-c", script};
  o.env = {{"PATH", "/usr/bin:/bin"}, {"MARKER", "given"}};
  o.inherit_env = false;
  o.sandbox = shell_policy();
  child_process child(o);
  if (report) *report = *child.sandbox();
  std::string out, line;
  while (child.read_line(line, 20s) == child_process::read_status::line) out += line + "\n";
  (void)child.wait_for_exit(5s);
  return out;
}

TEST(Sandbox, ReportsWhatItGot) {
  sandbox_report report;
  const auto out = run_sandboxed("echo started", &report);
  EXPECT_EQ(out, "started\n") << report.to_json().dump();
  EXPECT_TRUE(report.fds_closed);
  EXPECT_TRUE(report.rlimits);
  EXPECT_TRUE(report.no_new_privs);
  const auto j = report.to_json();
  EXPECT_TRUE(j.contains("landlock_abi") && j.contains("missing"));
  // On this project's machines (kernel 6.x) every part is available: say so if one is missing.
  EXPECT_TRUE(report.pid_namespace && report.network_namespace && report.mount_namespace && report.private_tmp &&
              report.landlock)
      << report.to_json().dump();
}

TEST(Sandbox, EnvironmentIsExactlyTheGivenOne) {
  ::setenv("PALLASBENCH_SECRET_OF_THE_HARNESS", "leaked", 1);
  const auto out = run_sandboxed("env | sort");
  ::unsetenv("PALLASBENCH_SECRET_OF_THE_HARNESS");
  EXPECT_EQ(out.find("PALLASBENCH_SECRET"), std::string::npos) << out;
  EXPECT_NE(out.find("MARKER=given"), std::string::npos) << out;
}

TEST(Sandbox, InheritsNoFileDescriptorButItsPipes) {
  const int opened = ::open("/dev/null", O_RDONLY);  // no O_CLOEXEC: posix_spawn would pass it on
  const int fd = ::dup2(opened, 77);
  ::close(opened);
  ASSERT_EQ(fd, 77);
  const auto out = run_sandboxed("ls /proc/self/fd");
  ::close(fd);
  // 0, 1, 2 and the descriptor ls opens to list the folder: nothing of ours.
  EXPECT_EQ(out.find("\n" + std::to_string(fd) + "\n"), std::string::npos) << out;
  EXPECT_NE(out.find("0\n1\n2\n"), std::string::npos) << out;
}

TEST(Sandbox, ScratchFoldersOfTheHostAreNotVisible) {
  char pattern[] = "/dev/shm/pallasbench-sandbox-test-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  const std::filesystem::path dir = pattern;
  std::ofstream(dir / "ref.npy") << "secret reference";
  sandbox_report report;
  const auto out = run_sandboxed("cat " + (dir / "ref.npy").string() + " 2>&1; ls /dev/shm | wc -l", &report);
  std::filesystem::remove_all(dir);
  EXPECT_EQ(out.find("secret reference"), std::string::npos) << out;
  if (report.private_tmp) EXPECT_NE(out.find("\n0\n"), std::string::npos) << out;  // an empty private /dev/shm
}

TEST(Sandbox, WritesOutsideItsPrivateTmpAreRefused) {
  const auto dir = std::filesystem::temp_directory_path() / "pallasbench-sandbox-write";
  const auto target = std::filesystem::current_path() / "pallasbench-sandbox-probe";
  std::filesystem::remove(target);
  sandbox_report report;
  const auto out =
      run_sandboxed("echo x > " + target.string() + " 2>/dev/null || echo refused; echo y > here && cat here", &report);
  EXPECT_FALSE(std::filesystem::exists(target)) << out;
  EXPECT_NE(out.find("refused"), std::string::npos) << out;
  EXPECT_NE(out.find("y\n"), std::string::npos) << out;  // its own working folder is writable
  std::filesystem::remove(target);
}

// A checkout under /tmp (as CI's clone can be) stays readable inside the private /tmp; its
// neighbours do not exist there.
TEST(Sandbox, ReadableTreesUnderAMaskedFolderAreBoundBack) {
  const auto tree = std::filesystem::temp_directory_path() / "pallasbench-sandbox-tree";
  const auto secret = std::filesystem::temp_directory_path() / "pallasbench-sandbox-secret";
  std::filesystem::create_directories(tree / "python");
  std::ofstream(tree / "python" / "module.py") << "visible";
  std::ofstream(secret) << "hidden";
  child_process::options o;
  o.argv = {"/bin/sh", "-c", "cat " + (tree / "python" / "module.py").string() + "; cat " + secret.string() + " 2>&1"};
  o.env = {{"PATH", "/usr/bin:/bin"}};
  o.inherit_env = false;
  o.sandbox = shell_policy();
  o.sandbox->readable.push_back(tree / "python");
  child_process child(o);
  const auto report = *child.sandbox();
  std::string out, line;
  while (child.read_line(line, 20s) == child_process::read_status::line) out += line + "\n";
  std::filesystem::remove_all(tree);
  std::filesystem::remove(secret);
  EXPECT_TRUE(report.private_tmp) << report.to_json().dump();
  EXPECT_EQ(out.rfind("visible", 0), 0u) << out;
  EXPECT_EQ(out.find("hidden"), std::string::npos) << out;
}

TEST(Sandbox, HasNoNetworkButLoopback) {
  sandbox_report report;
  // /proc/net/dev lists the interfaces of the reader's network namespace.
  const auto out = run_sandboxed("tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '", &report);
  if (!report.network_namespace) GTEST_SKIP() << "no network namespace here: " << report.missing;
  EXPECT_EQ(out, "lo\n");
}

// A daemon the sandboxed process starts (setsid, double fork) dies with it.
TEST(Sandbox, EveryProcessItStartsDiesWithIt) {
  sandbox_report report;
  {
    child_process::options o;
    o.argv = {"/bin/sh", "-c", "setsid sh -c 'sleep 4242.5' & echo started; sleep 60"};
    o.env = {{"PATH", "/usr/bin:/bin"}};
    o.inherit_env = false;
    o.sandbox = shell_policy();
    child_process child(o);
    report = *child.sandbox();
    std::string line;
    ASSERT_EQ(child.read_line(line, 20s), child_process::read_status::line);
    std::this_thread::sleep_for(200ms);
  }  // killed here
  if (!report.pid_namespace) GTEST_SKIP() << "no PID namespace here: " << report.missing;
  std::this_thread::sleep_for(300ms);
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    std::ifstream cmdline(entry.path() / "cmdline");
    std::string text((std::istreambuf_iterator<char>(cmdline)), {});
    EXPECT_EQ(text.find("4242.5"), std::string::npos) << "survivor: " << entry.path();
  }
}

TEST(Sandbox, RunsAsInitOfItsOwnPidNamespace) {
  sandbox_report report;
  const auto out = run_sandboxed("echo $$", &report);
  if (!report.pid_namespace) GTEST_SKIP() << "no PID namespace here: " << report.missing;
  EXPECT_EQ(out, "1\n");
}

TEST(Sandbox, RlimitsApply) {
  const auto out = run_sandboxed("ulimit -t; ulimit -c");
  EXPECT_EQ(out, "30\n0\n");
}

}  // namespace
}  // namespace pallasbench
