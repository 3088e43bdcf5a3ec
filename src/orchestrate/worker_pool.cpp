#include "pallasbench/orchestrate/worker_pool.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>

namespace pallasbench {

worker_options worker_pool::role_options(worker_role role, bool suite) const {
  worker_options o = m_options;
  o.role = role;
  if (role != worker_role::tracer) {
    // Written by trusted compiles only: the folder's executables are loaded and run as they are.
    if (!o.compile_cache.empty()) o.arguments = {"--compile-cache", o.compile_cache.string()};
    if (m_device_alone && o.memory && o.memory->plan.device_share > 0) {
      auto alone = std::make_shared<memory_containment>(*o.memory);
      alone->plan.device_share = alone->plan.alone_device_share();
      o.memory = std::move(alone);
    }
    return o;
  }
  o.compile_cache.clear();  // the untrusted tracer never learns the folder (nor may write it)
  if (!o.command.empty()) return o;
  if (suite) o.arguments = {"--suite"};
  // The tracer reads the project's Python and tasks and the interpreter's own folders (as the
  // trusted reference process reports them), nothing else; it writes only its private /tmp.
  sandbox_policy policy;
  policy.readable = {o.project_root / "python",
                     o.project_root / "tasks",
                     "/usr",
                     "/lib",
                     "/lib64",
                     "/lib32",
                     "/bin",
                     "/sbin",
                     "/proc",
                     "/sys",
                     "/etc/ld.so.cache",
                     "/etc/ld.so.conf",
                     "/etc/ld.so.conf.d",
                     "/etc/localtime",
                     "/etc/nsswitch.conf",
                     "/etc/passwd",
                     "/etc/group",
                     "/etc/alternatives",
                     "/etc/os-release"};
  if (const auto venv = o.python.parent_path().parent_path(); std::filesystem::exists(venv / "pyvenv.cfg"))
    policy.readable.push_back(venv);
  for (const auto& p : o.python_paths) policy.readable.push_back(p);
  if (o.memory) {
    const auto& plan = o.memory->plan;
    policy.tmpfs_bytes = plan.tmpfs_bytes;
    // Under a cgroup the pages are bounded there; the rlimits stay a loose backstop (JAX maps far
    // more than it touches).
    if (plan.tracer_bytes > 0) {
      policy.data_bytes = o.memory->cgroups ? 4 * plan.tracer_bytes : plan.tracer_data();
      policy.address_space_bytes = policy.data_bytes + k_tracer_mapped_libraries;
    }
  }
  policy.cpu_seconds =
      static_cast<std::uint64_t>(std::max(60.0, 4 * std::chrono::duration<double>(o.startup_timeout).count()));
  o.sandbox = policy;
  return o;
}

worker& worker_pool::reference() {
  if (!m_reference) {
    m_reference = std::make_unique<worker>(role_options(worker_role::reference));
    m_reference_greeted = false;
  }
  if (!m_reference_greeted) {
    // The tracer's sandbox opens the interpreter's import folders only: ask the trusted side.
    for (const auto& p : m_reference->hello().value("python_paths", std::vector<std::string>{}))
      if (std::find(m_options.python_paths.begin(), m_options.python_paths.end(), p) == m_options.python_paths.end())
        m_options.python_paths.emplace_back(p);
    m_reference_greeted = true;
  }
  return *m_reference;
}

void worker_pool::start_trusted() {
  if (!m_reference) {
    m_reference = std::make_unique<worker>(role_options(worker_role::reference));
    m_reference_greeted = false;
  }
  (void)executor();
}

worker& worker_pool::executor() {
  if (!m_executor) m_executor = std::make_unique<worker>(role_options(worker_role::executor));
  return *m_executor;
}

std::unique_ptr<worker> worker_pool::take_tracer() {
  (void)reference();  // the sandbox needs its python_paths
  auto tracer =
      m_spare_tracer ? std::move(m_spare_tracer) : std::make_unique<worker>(role_options(worker_role::tracer));
  if (m_keep_spare) m_spare_tracer = std::make_unique<worker>(role_options(worker_role::tracer));
  return tracer;
}

worker& worker_pool::suite_tracer() {
  (void)reference();
  if (!m_suite_tracer) m_suite_tracer = std::make_unique<worker>(role_options(worker_role::tracer, true));
  return *m_suite_tracer;
}

void worker_pool::prestart(candidate_kind kind) {
  (void)reference();
  (void)executor();
  if (kind == candidate_kind::suite)
    (void)suite_tracer();
  else if (!m_spare_tracer)
    m_spare_tracer = std::make_unique<worker>(role_options(worker_role::tracer));
}

std::vector<pid_t> worker_pool::trusted_pids() const {
  std::vector<pid_t> pids;
  for (const auto* w : {m_reference.get(), m_executor.get()})
    if (w) pids.push_back(w->pid());
  return pids;
}

nlohmann::json worker_pool::trusted_memory_limits() const {
  nlohmann::json out = nlohmann::json::object();
  if (m_executor) out["executor"] = m_executor->memory_limit().to_json();
  if (m_reference) out["reference"] = m_reference->memory_limit().to_json();
  return out;
}

void worker_pool::signal_kill() {
  for (auto* w : {m_reference.get(), m_executor.get(), m_spare_tracer.get(), m_suite_tracer.get()})
    if (w) w->signal_kill();
}

void worker_pool::clear_stderr_tails() {
  if (m_reference) m_reference->clear_stderr_tail();
  if (m_executor) m_executor->clear_stderr_tail();
}

void worker_pool::discard_reference() { m_reference.reset(); }
void worker_pool::discard_executor() { m_executor.reset(); }
void worker_pool::discard_suite_tracer() { m_suite_tracer.reset(); }

}  // namespace pallasbench
