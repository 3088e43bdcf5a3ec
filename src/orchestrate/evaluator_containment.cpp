// What keeps one evaluation's trouble its own: a tracer's memory failures named by the limit they
// met, an out-of-memory in the lane's executor or reference retried with the device to the lane
// alone, and a compiler-artifact capture that can cost the record its artifacts but never its
// verdict (docs/threat_model.md).
#include <fmt/format.h>

#include "pallasbench/orchestrate/evaluator.hpp"
#include "pallasbench/orchestrate/out_of_memory.hpp"

namespace pallasbench {
namespace {

using nlohmann::json;

// A failure in the lane's executor or reference (not the tracer's, not the harness's analysis)
// whose words are an out-of-memory: the device's, or the host's on the CPU. A crash is read from
// the process's stderr too (CUDA aborts there); an answered failure only from its own message
// (XLA warns of allocations it retried and got in stderr).
bool out_of_memory_in_lane(const task_result& result) {
  if (!result.failure) return false;
  const auto phase = result.failure->phase;
  if (phase == failure_phase::trace || phase == failure_phase::analysis || phase == failure_phase::check) return false;
  switch (result.status) {
    case task_status::crashed:
      return mentions_out_of_memory(result.failure->message) || mentions_out_of_memory(result.stderr_tail);
    case task_status::runtime_error:
    case task_status::compile_error:
    case task_status::harness_error:
      return mentions_out_of_memory(result.failure->message);
    default:
      return false;
  }
}

}  // namespace

task_result evaluator::evaluate_configured(const task_info& task, const candidate_spec& candidate) {
  auto result = evaluate_attempt(task, candidate);
  if (!out_of_memory_in_lane(result)) return result;
  return retry_alone(task, candidate, std::move(result));
}

task_result evaluator::retry_alone(const task_info& task, const candidate_spec& candidate, task_result first) {
  // Fresh processes (their allocators' pools start empty), and no other lane's work on the device
  // until the retry is done: what ran out cannot have been a neighbour's doing this time.
  // They take the device share of a lane alone: every lane's, not the lane's own (which an honest
  // LARGE module may well exceed at many lanes); afterwards the lane's own again.
  const auto restart = [&] {
    m_pool.discard_reference();
    m_pool.discard_executor();
  };
  restart();
  task_result result;
  std::optional<std::uint64_t> retry_device_limit;  // the retry executor's pool, as it greeted
  {
    const alone_scope alone(*this, nullptr);
    m_pool.set_device_alone(true);
    try {
      result = evaluate_attempt(task, candidate);
      retry_device_limit = executor_device_limit();
    } catch (...) {
      m_pool.set_device_alone(false);
      restart();
      throw;
    }
    m_pool.set_device_alone(false);
    restart();
  }
  result.trust["retried_alone"] = {{"phase", to_string(first.failure->phase)},
                                   {"status", to_string(first.status)},
                                   {"message", first.failure->message}};
  if (out_of_memory_in_lane(result)) blame_out_of_memory_again(result, retry_device_limit);
  return result;
}

std::optional<std::uint64_t> evaluator::executor_device_limit() {
  try {
    if (!m_pool.has_executor()) return std::nullopt;
    const auto& hello = m_pool.executor().hello();
    if (hello.contains("device_limit") && hello["device_limit"].is_number_unsigned())
      return hello["device_limit"].get<std::uint64_t>();
  } catch (const std::exception&) {  // an executor that is gone tells nothing: the memo, or unknown
  }
  return std::nullopt;
}

void evaluator::blame_out_of_memory_again(task_result& result, std::optional<std::uint64_t> greeted_limit) {
  // What the module needs: XLA's analysis of it, or where it failed to compile (no analysis), the
  // one allocation XLA could not make, the least it needs.
  auto needs = module_bytes(result.memory);
  const bool compile_time = !needs.has_value();
  if (compile_time) needs = requested_allocation(result.failure->message);
  // The retry executor's own limit: its device pool's on a GPU (XLA's bytes_limit, from its compile
  // or, when that failed, its greeting: a lane alone's share), its host limit on the CPU, where the
  // module runs in host memory.
  std::optional<std::uint64_t> share;
  if (result.memory.contains("device_limit") && result.memory["device_limit"].is_number_unsigned())
    share = result.memory["device_limit"].get<std::uint64_t>();
  else if (greeted_limit)
    share = greeted_limit;
  else if (m_pool.memory() && m_pool.memory()->plan.worker_bytes > 0 && m_config.device == device_kind::cpu)
    share = m_pool.memory()->plan.worker_bytes;
  auto& failure = *result.failure;
  if (blame_out_of_memory(needs, share) == oom_blame::candidate) {
    failure.message += fmt::format(
        " [out of memory again with the device to this lane alone: the module needs {} ({}), more than the "
        "lane's share, {} (--device-share, --worker-memory)]",
        format_bytes(*needs),
        compile_time ? "one allocation XLA could not make while compiling it" : "arguments, output and temporaries",
        format_bytes(*share));
    return;
  }
  result.status = task_status::harness_error;  // never another candidate's, nor this one's, verdict
  failure.message = fmt::format(
      "out of memory again with the device to this lane alone, though the module needs {} of the lane's share "
      "{}: the harness could not give the evaluation its memory (first: {})",
      needs ? format_bytes(*needs) : "an unknown amount", share ? format_bytes(*share) : "(unknown)", failure.message);
}

void evaluator::rethrow_with_tracer_limits(const worker& tracer) {
  const auto tmpfs = tracer.sandbox() ? tracer.sandbox()->tmpfs_bytes : 0;
  // The same failure, thrown where it was first (its record's traceback), its message naming the
  // limit it met when it was one of memory or space.
  try {
    throw;
  } catch (const command_failed& e) {
    auto message = with_tracer_limits(e.what(), tracer.stderr_tail(), tracer.memory_limit(), tmpfs, false);
    if (message == e.what()) throw;
    throw command_failed(e.kind(), message, e.traceback(), e.lowering(), e.where());
  } catch (const worker_failure& e) {
    auto message = with_tracer_limits(e.what(), e.stderr_tail(), tracer.memory_limit(), tmpfs, tracer.oom_killed());
    if (message == e.what()) throw;
    throw worker_failure(e.what_kind(), message, e.status(), e.stderr_tail(), e.where());
  }
}

json evaluator::worker_memory() const {
  auto out = m_pool.trusted_memory_limits();
  if (m_config.device == device_kind::gpu && m_pool.memory() && m_pool.memory()->plan.device_share > 0)
    out["device_share"] = m_pool.memory()->plan.device_share;
  return out;
}

void evaluator::collect_artifacts(task_result& result, bool reload) {
  if (m_pending_artifacts.is_null()) return;
  m_phase = failure_phase::compile;
  const auto collecting = m_clock.enter(work_phase::artifacts);
  json captured = std::move(m_pending_artifacts);
  m_pending_artifacts = nullptr;
  const auto wait = std::min(m_artifacts.timeout, timeout());
  try {
    const auto reply = protocol::call(m_pool.executor(), protocol::artifacts_request{}, wait);
    if (reply.contains("artifacts") && reply["artifacts"].is_object()) captured = reply["artifacts"];
  } catch (const command_failed& e) {
    captured["unavailable"]["ptx"] = fmt::format("collecting the background capture failed: {}", e.what());
  } catch (const worker_failure& e) {
    // The capture (XLA's dump compile, ptxas, cuobjdump) hung or took the executor down with it:
    // the evidence is missing, the verdict the checks gave stands.
    m_pool.discard_executor();
    captured["unavailable"]["capture"] =
        fmt::format("{} (--artifacts-timeout {:.0f} s){}", e.what(), std::chrono::duration<double>(wait).count(),
                    reload ? "; the executor was restarted and the candidate compiled again for timing" : "");
    if (reload) reload_candidate(result);
  }
  keep_artifacts(result, captured);
}

void evaluator::reload_candidate(task_result& result) {
  const auto compiling = m_clock.enter(work_phase::compile);
  try {
    m_phase = failure_phase::load;
    (void)protocol::call(m_pool.executor(), *m_loaded, timeout());
    m_phase = failure_phase::compile;
    const auto lease = gpu_work();
    const auto reply = protocol::compile_reply::from_json(
        protocol::call(m_pool.executor(), protocol::compile_request{artifact_mode::none, false, ""}, timeout()));
    result.trust["phase_s"]["recompile"] = reply.lower_s + reply.compile_s;
  } catch (const interrupted_error&) {
    throw;
  } catch (const std::exception& e) {
    // The same module compiled before: failing now is the harness's trouble, not the candidate's.
    m_pool.discard_executor();
    throw std::runtime_error(
        fmt::format("compiling the candidate again after its artifact capture was stopped failed: {}", e.what()));
  }
}

}  // namespace pallasbench
