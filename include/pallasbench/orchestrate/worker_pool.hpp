// The processes an evaluation runs in: reference, executor and tracers (docs/architecture.md).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "pallasbench/orchestrate/task_result.hpp"
#include "pallasbench/orchestrate/worker.hpp"

namespace pallasbench {

// The harness's processes (docs/architecture.md): the trusted reference (inputs, reference
// outputs, XLA baseline) and executor (compiles, runs and times the modules tracers hand over),
// each long-lived and replaced on next use when it failed; and one sandboxed tracer per
// candidate, thrown away after its trace. Candidate code runs only in tracers.
class worker_pool {
public:
  explicit worker_pool(worker_options options) : m_options(std::move(options)) {}
  worker& reference();
  worker& executor();
  // A sandboxed tracer for one user candidate, thrown away after its trace (the one prestarted,
  // when there is one).
  [[nodiscard]] std::unique_ptr<worker> take_tracer();
  // The sandboxed tracer of the suite's own kernels: the suite is one candidate, the project's
  // reviewed code, so its tasks share one tracer per run (docs/threat_model.md).
  worker& suite_tracer();
  // Starts the reference and the executor without waiting for their greetings.
  void start_trusted();
  // Starts the executor and the tracer the run will need now (the reference's greeting is
  // awaited: the tracer's sandbox needs its import folders).
  void prestart(candidate_kind kind);
  // While true, taking a user candidate's tracer starts the next one's: its JAX start overlaps
  // the evaluation of the one taken.
  void keep_spare_tracer(bool keep) { m_keep_spare = keep; }
  // While true, an executor or reference started takes the device share of a lane that holds the
  // device alone (memory_plan::alone_device_share) instead of its lane's: the retry of an
  // out-of-memory with the device to the lane alone (evaluator_containment.cpp).
  void set_device_alone(bool alone) { m_device_alone = alone; }
  void discard_reference();
  void discard_executor();
  void discard_suite_tracer();
  [[nodiscard]] bool has_executor() const { return m_executor != nullptr; }
  // The run's memory bounds (null: none).
  [[nodiscard]] const std::shared_ptr<const memory_containment>& memory() const { return m_options.memory; }
  // {"executor": memory_limit, "reference": memory_limit} of those started.
  [[nodiscard]] nlohmann::json trusted_memory_limits() const;
  // The reference's and the executor's process ids, of those started.
  [[nodiscard]] std::vector<pid_t> trusted_pids() const;
  void clear_stderr_tails();  // at a task's start: its record keeps only its own stderr
  // SIGKILL to every worker, reaped later (their destructors): for ending many pools at once.
  void signal_kill();

private:
  [[nodiscard]] worker_options role_options(worker_role role, bool suite = false) const;

  worker_options m_options;
  std::unique_ptr<worker> m_reference, m_executor, m_spare_tracer, m_suite_tracer;
  bool m_reference_greeted = false;  // its import folders are in m_options
  bool m_keep_spare = false;
  bool m_device_alone = false;
};

}  // namespace pallasbench
