#include "pallasbench/orchestrate/worker.hpp"

#include <sys/resource.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "pallasbench/orchestrate/paths.hpp"

namespace pallasbench {
namespace {

// The environment of a sandboxed (untrusted) process: nothing of ours, the GPU hidden.
std::vector<std::pair<std::string, std::string>> scrubbed_environment(const worker_options& o) {
  std::string python_path = (o.project_root / "python").string();
  for (const auto& p : o.python_paths) python_path += ":" + p.string();
  return {{"PATH", "/usr/local/bin:/usr/bin:/bin"},
          {"HOME", "/tmp"},
          {"LANG", "C.UTF-8"},
          {"PYTHONPATH", python_path},
          {"PYTHONNOUSERSITE", "1"},
          {"PYTHONDONTWRITEBYTECODE", "1"},
          {"PALLASBENCH_ROOT", o.project_root.string()},
          {"PALLASBENCH_ROLE", std::string(to_string(o.role))},
          {"JAX_PLATFORMS", "cpu"},  // lowering for CUDA needs no GPU
          {"CUDA_VISIBLE_DEVICES", ""},
          // glibc reserves 64 MiB of address space per malloc arena (up to 8 a core): under
          // RLIMIT_AS that is share spent on nothing.
          {"MALLOC_ARENA_MAX", "2"},
          {"TF_CPP_MIN_LOG_LEVEL", "1"}};
}

child_process::options process_options(const worker_options& o) {
  child_process::options opts;
  opts.argv = o.command.empty() ? std::vector<std::string>{o.python.string(), "-u", "-m",
                                                           "pallasbench.worker." + std::string(to_string(o.role))}
                                : o.command;
  if (o.command.empty()) opts.argv.insert(opts.argv.end(), o.arguments.begin(), o.arguments.end());
  opts.cwd = o.project_root;
  if (o.sandbox) {
    opts.sandbox = o.sandbox;
    opts.inherit_env = false;
    opts.env = scrubbed_environment(o);
    return opts;
  }
  // The user's PYTHONPATH (a `pip install --target` folder, say) is extended, not replaced: a
  // candidate may import the user's own libraries. The tracer's sandbox gets those folders
  // through the reference's sys.path (python_paths).
  opts.env = {
      {"PYTHONPATH", project_python_path(o.project_root)},
      {"PALLASBENCH_ROOT", o.project_root.string()},
      {"PALLASBENCH_ROLE",
       std::string(to_string(o.role))},  // which of the three a process is (test fakes play all three)
      // Two workers share one GPU (reference and candidate): neither may grab 75% of it up front.
      {"XLA_PYTHON_CLIENT_PREALLOCATE", "false"},
      {"TF_CPP_MIN_LOG_LEVEL", "1"},
  };
  if (!o.visible_devices.empty()) {
    opts.env.emplace_back("CUDA_DEVICE_ORDER", "PCI_BUS_ID");
    opts.env.emplace_back("CUDA_VISIBLE_DEVICES", o.visible_devices);
  }
  // The lane's share of its GPU: XLA's allocator takes no more (its limit with preallocation off too).
  if (o.memory && o.memory->plan.device_share > 0)
    opts.env.emplace_back("XLA_PYTHON_CLIENT_MEM_FRACTION", fmt::format("{:.4f}", o.memory->plan.device_share));
  if (o.device == device_choice::cpu) opts.env.emplace_back("JAX_PLATFORMS", "cpu");
  if (o.device == device_choice::gpu) opts.env.emplace_back("JAX_PLATFORMS", "cuda");
  // The CUPTI timer built with this executable (the worker loads it when it times on a GPU).
  if (const auto timer = timer_library(); !timer.empty())
    opts.env.emplace_back("PALLASBENCH_TIMER_LIB", timer.string());
  return opts;
}

}  // namespace

worker_failure::worker_failure(kind k, std::string message, std::optional<exit_status> status, std::string stderr_tail,
                               std::source_location where)
    : error(message, where), m_kind(k), m_status(status), m_stderr_tail(std::move(stderr_tail)) {}

worker::worker(const worker_options& options)
    : m_process(process_options(options)), m_startup_timeout(options.startup_timeout) {
  limit_memory(options);
}

// Before its first request (a tracer receives the candidate's source only with it): the process
// moved into a cgroup of its own, or its rlimit set (a tracer's were set in its sandbox).
void worker::limit_memory(const worker_options& options) {
  if (!options.memory) return;
  const auto& plan = options.memory->plan;
  const bool tracer = options.role == worker_role::tracer;
  const std::uint64_t bytes = tracer ? plan.tracer_bytes : plan.worker_bytes;
  if (bytes == 0) {
    m_memory_limit.detail = "no host-memory budget (--host-memory 0)";
    return;
  }
  if (const auto& tree = options.memory->cgroups) {
    m_leaf = tree->place(m_process.pid(), fmt::format("{}-{}", to_string(options.role), m_process.pid()), bytes);
    m_memory_limit = {memory_mechanism::cgroup, bytes,
                      fmt::format("cgroup {}: memory.max, memory.swap.max 0", m_leaf->path().string())};
    return;
  }
  if (tracer) {
    const bool set = m_process.sandbox() && m_process.sandbox()->rlimits;
    m_memory_limit = {set ? memory_mechanism::rlimit : memory_mechanism::none, set ? bytes : 0,
                      set ? fmt::format("RLIMIT_DATA {}, RLIMIT_AS {} and a tmpfs of {} for /tmp and for /dev/shm",
                                        format_bytes(plan.tracer_data()), format_bytes(plan.tracer_address_space()),
                                        format_bytes(plan.tmpfs_bytes))
                          : "the sandbox could not set its rlimits",
                      options.memory->cgroups_missing};
    return;
  }
  // Trusted roles: their data (the heap and private mappings), which XLA's buffers live in; CUDA's
  // reservations of address space are no data and stay free.
  const rlimit limit{bytes, bytes};
  if (::prlimit(m_process.pid(), RLIMIT_DATA, &limit, nullptr) == 0)
    m_memory_limit = {memory_mechanism::rlimit, bytes, "RLIMIT_DATA", options.memory->cgroups_missing};
  else
    m_memory_limit.detail = fmt::format("prlimit RLIMIT_DATA: {}", std::strerror(errno));
}

const nlohmann::json& worker::hello() {
  if (m_hello.is_null()) {
    if (m_dead) throw worker_failure(worker_failure::kind::died, "worker is gone", std::nullopt, stderr_tail());
    auto greeting = read_reply(m_startup_timeout, "starting up");
    if (!greeting.value("ready", false)) {
      const auto& error = greeting.value("error", nlohmann::json::object());
      fail(worker_failure::kind::protocol, error.contains("message") && error["message"].is_string()
                                               ? error["message"].get<std::string>()
                                               : std::string("worker greeting lacks \"ready\""));
    }
    m_hello = std::move(greeting);
  }
  return m_hello;
}

void worker::fail(worker_failure::kind kind, const std::string& message) {
  std::optional<exit_status> status;
  if (kind == worker_failure::kind::died) {
    status = m_process.wait_for_exit(std::chrono::seconds(2));
    if (!status) status = m_process.kill_and_wait();
  } else {
    status = m_process.kill_and_wait();
  }
  m_dead = true;
  std::string text = message;
  if (kind == worker_failure::kind::died) text += fmt::format(" (worker ended with {})", status->describe());
  throw worker_failure(kind, text, status, m_process.stderr_tail());
}

nlohmann::json worker::read_reply(std::chrono::milliseconds timeout, const std::string& what) {
  std::string line;
  switch (m_process.read_line(line, timeout)) {
    case child_process::read_status::line:
      break;
    case child_process::read_status::interrupted:
      throw interrupted_error();
    case child_process::read_status::timeout:
      fail(worker_failure::kind::timeout,
           fmt::format("worker did not answer within {:.0f} s while {}", timeout.count() / 1000.0, what));
    case child_process::read_status::eof:
      fail(worker_failure::kind::died, fmt::format("worker died while {}", what));
  }
  auto reply = nlohmann::json::parse(line, nullptr, false);
  if (reply.is_discarded() || !reply.is_object())
    fail(worker_failure::kind::protocol, fmt::format("worker sent a line that is not a JSON object: {:.200}", line));
  return reply;
}

nlohmann::json worker::call(nlohmann::json request, std::chrono::milliseconds timeout) {
  if (m_dead) throw worker_failure(worker_failure::kind::died, "worker is gone", std::nullopt, stderr_tail());
  (void)hello();
  const long id = m_next_id++;
  request["id"] = id;
  const std::string what = fmt::format("running '{}'", request.value("cmd", "?"));
  try {
    m_process.write_line(request.dump());
  } catch (const process_error&) {
    fail(worker_failure::kind::died, fmt::format("worker died before {}", what));
  }
  auto reply = read_reply(timeout, what);
  if (reply.value("id", -1L) != id)
    fail(worker_failure::kind::protocol,
         fmt::format("reply id {} does not match request id {}", reply.value("id", -1L), id));
  if (!reply.value("ok", false)) {
    const auto& error = reply.value("error", nlohmann::json::object());
    throw command_failed(error.value("kind", "runtime_error"), error.value("message", "unknown error"),
                         error.value("traceback", ""), error.value("lowering", nlohmann::json()));
  }
  return reply;
}

}  // namespace pallasbench
