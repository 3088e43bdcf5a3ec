// A Python worker process and the JSON-lines protocol spoken with it.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pallasbench/core/enum_names.hpp"
#include "pallasbench/core/error.hpp"
#include "pallasbench/core/interrupt.hpp"
#include "pallasbench/orchestrate/cgroup.hpp"
#include "pallasbench/orchestrate/memory_limits.hpp"
#include "pallasbench/orchestrate/run_plan.hpp"
#include "pallasbench/orchestrate/subprocess.hpp"

namespace pallasbench {

// The worker could not answer: it hung, died, or broke the protocol. The task it was serving
// gets a status from `kind`; the worker must be replaced.
class worker_failure : public error {
public:
  enum class kind { timeout, died, protocol };
  worker_failure(kind k, std::string message, std::optional<exit_status> status, std::string stderr_tail,
                 std::source_location where = std::source_location::current());
  [[nodiscard]] kind what_kind() const { return m_kind; }
  [[nodiscard]] const std::optional<exit_status>& status() const { return m_status; }
  [[nodiscard]] const std::string& stderr_tail() const { return m_stderr_tail; }

private:
  kind m_kind;
  std::optional<exit_status> m_status;
  std::string m_stderr_tail;
};

// A command the worker answered with ok=false (a compile error, a raising kernel, ...).
class command_failed : public error {
public:
  // `traceback`: the worker's own (Python) traceback; `lowering`: the tracer's lowering help
  // (an object, or null), read by record/lowering_help_from_json.
  command_failed(std::string kind, const std::string& message, std::string traceback, nlohmann::json lowering = nullptr,
                 std::source_location where = std::source_location::current())
      : error(message, where),
        m_kind(std::move(kind)),
        m_traceback(std::move(traceback)),
        m_lowering(std::move(lowering)) {}
  [[nodiscard]] const std::string& kind() const { return m_kind; }
  [[nodiscard]] const std::string& traceback() const { return m_traceback; }
  [[nodiscard]] const nlohmann::json& lowering() const { return m_lowering; }

private:
  std::string m_kind;
  std::string m_traceback;
  nlohmann::json m_lowering;
};

enum class worker_role { reference, executor, tracer };

template <>
struct enum_names<worker_role> {
  static constexpr std::string_view what = "worker role";
  static constexpr std::array entries{
      std::pair{worker_role::reference, std::string_view("reference")},
      std::pair{worker_role::executor, std::string_view("executor")},
      std::pair{worker_role::tracer, std::string_view("tracer")},
  };
};

// How a run bounds its workers' memory: each role's share (memory_limits.hpp) and the cgroup
// tree that enforces it, or rlimits where the machine delegates none (`cgroups_missing` says why).
struct memory_containment {
  memory_plan plan;
  std::shared_ptr<const cgroup_tree> cgroups;
  std::string cgroups_missing;
};

struct worker_options {
  std::filesystem::path python;                     // interpreter
  std::filesystem::path project_root;               // holds python/ and tasks/
  device_choice device = device_choice::automatic;  // cpu forces JAX_PLATFORMS=cpu; gpu forces cuda
  std::chrono::milliseconds startup_timeout{std::chrono::seconds(180)};
  // The command started; empty means `python -u -m pallasbench.worker.<role>` (tests start fakes).
  std::vector<std::string> command;
  worker_role role = worker_role::reference;  // python/pallasbench/worker/<role>.py
  std::vector<std::string> arguments;         // after `-m pallasbench.worker.<role>`
  // Set for untrusted roles: the process starts sandboxed, with a scrubbed environment and the
  // GPU hidden (sandbox.hpp).
  std::optional<sandbox_policy> sandbox;
  std::vector<std::filesystem::path> python_paths;  // import folders a sandboxed process is given
  // The trusted roles' CUDA_VISIBLE_DEVICES (with CUDA_DEVICE_ORDER=PCI_BUS_ID, NVML's order):
  // the one GPU of their lane. Empty: the variable is left as it is.
  std::string visible_devices;
  // --compile-cache: JAX's persistent compilation cache folder, passed to the trusted roles only
  // (`--compile-cache DIR` after the module); empty: every compile is cold.
  std::filesystem::path compile_cache;
  // The run's memory bounds; null: none (tests, `list`).
  std::shared_ptr<const memory_containment> memory;
};

class worker {
public:
  // Starts the process; its greeting is awaited on first use, so several start in parallel.
  explicit worker(const worker_options& options);

  // The {"ready": true, ...} greeting, with the environment the worker sees.
  [[nodiscard]] const nlohmann::json& hello();
  // What the sandbox got, for a sandboxed worker.
  [[nodiscard]] const std::optional<sandbox_report>& sandbox() const { return m_process.sandbox(); }
  [[nodiscard]] pid_t pid() const { return m_process.pid(); }
  [[nodiscard]] std::string stderr_tail() const { return m_process.stderr_tail(); }
  void clear_stderr_tail() { m_process.clear_stderr_tail(); }
  // SIGKILL without waiting; the destructor reaps (worker_pool::signal_kill).
  void signal_kill() { m_process.signal_kill(); }
  // What bounds this process's memory (mechanism none without a containment).
  [[nodiscard]] const pallasbench::memory_limit& memory_limit() const { return m_memory_limit; }
  // Whether the kernel killed it at its cgroup's limit.
  [[nodiscard]] bool oom_killed() const { return m_leaf && m_leaf->oom_kills() > 0; }

  // Sends `request` (an "id" is added) and returns the reply's payload. Throws command_failed for
  // ok=false, worker_failure when the worker hangs past `timeout` (it is killed), dies or breaks
  // the protocol, interrupted_error on Ctrl-C.
  nlohmann::json call(nlohmann::json request, std::chrono::milliseconds timeout);

private:
  nlohmann::json read_reply(std::chrono::milliseconds timeout, const std::string& what);
  [[noreturn]] void fail(worker_failure::kind kind, const std::string& message);
  void limit_memory(const worker_options& options);

  std::unique_ptr<cgroup_leaf> m_leaf;  // before m_process: removed after the process is reaped
  child_process m_process;
  pallasbench::memory_limit m_memory_limit;
  std::chrono::milliseconds m_startup_timeout;
  nlohmann::json m_hello;  // null until the greeting is read
  long m_next_id = 1;
  bool m_dead = false;
};

}  // namespace pallasbench
