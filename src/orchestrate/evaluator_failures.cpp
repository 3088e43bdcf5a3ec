// The one place where a failed step becomes a status: (phase, exception) -> status, failure and
// the worker that must be replaced. A correct evaluation's `ok` is verify()'s; every other status
// is set here.
#include <fmt/format.h>

#include "detail/evaluator_errors.hpp"
#include "pallasbench/core/interrupt.hpp"
#include "pallasbench/orchestrate/evaluator.hpp"
#include "pallasbench/record/record.hpp"

namespace pallasbench {
namespace {

using detail::refused_candidate;
using detail::refused_module;
using detail::failed_check;
using detail::refused_timing;
using detail::wrong_output;

// A worker's ok=false reply: the candidate's failure (compile_error, runtime_error) or the
// harness's (task_error, usage_error: the harness or the task is at fault).
task_status status_of_command(const std::string& kind) {
  if (kind == "compile_error") return task_status::compile_error;
  if (kind == "runtime_error") return task_status::runtime_error;
  return task_status::harness_error;
}

// A worker that hung or died: the candidate's timeout or crash, unless it was the reference's.
task_status status_of_worker_failure(failure_phase phase, worker_failure::kind kind) {
  if (on_reference_side(phase)) return task_status::harness_error;  // the reference itself hung or died
  return kind == worker_failure::kind::timeout ? task_status::timeout : task_status::crashed;
}

}  // namespace

void evaluator::fail(task_result& result, const std::exception_ptr& error) {
  auto failed = [&](task_status status, std::string message, std::string traceback) {
    result.status = status;
    result.failure = failure_info{m_phase, std::move(message), std::move(traceback), std::nullopt};
  };
  try {
    std::rethrow_exception(error);
  } catch (const interrupted_error&) {
    throw;
  } catch (const command_failed& e) {
    failed(status_of_command(e.kind()), e.what(), e.traceback());
    result.failure->lowering = lowering_help_from_json(e.lowering());
  } catch (const refused_candidate& e) {
    failed(task_status::compile_error, e.what(), cpp_traceback(e));  // as Python refuses a file it cannot read
  } catch (const refused_module& e) {
    failed(task_status::compile_error, e.what(), cpp_traceback(e));  // never compiled: nothing of it ran
    record_source_analysis(result);
  } catch (const worker_failure& e) {
    failed(status_of_worker_failure(m_phase, e.what_kind()), e.what(), cpp_traceback(e));
    result.stderr_tail = e.stderr_tail();
    if (on_reference_side(m_phase))
      m_pool.discard_reference();
    else if (m_phase != failure_phase::trace)  // a tracer that hung or died is gone already
      m_pool.discard_executor();               // a kernel (or its module) crashed or hung it
  } catch (const failed_check& e) {
    failed(task_status::incorrect, e.what(), "");  // the correctness report says where
  } catch (const refused_timing& e) {
    failed(task_status::timing_rejected, e.what(), "");  // the record's timing says why
  } catch (const wrong_output& e) {
    failed(task_status::incorrect, e.what(), cpp_traceback(e));
  } catch (const npy_error& e) {
    failed(task_status::incorrect, fmt::format("output cannot be checked: {}", e.what()), cpp_traceback(e));
  } catch (const std::exception& e) {
    failed(task_status::harness_error, e.what(), cpp_traceback(e));
  }
}

}  // namespace pallasbench
