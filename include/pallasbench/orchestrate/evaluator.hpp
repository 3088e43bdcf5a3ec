// Evaluating one candidate on one task: reference, load, seeds, stress, robustness, artifacts,
// timing. The evaluator's own steps read in that order (evaluate()).
#pragma once

#include <chrono>
#include <exception>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "pallasbench/analyze/module_analysis.hpp"
#include "pallasbench/check/npy.hpp"
#include "pallasbench/measure/stopping.hpp"
#include "pallasbench/measure/timing_checks.hpp"
#include "pallasbench/orchestrate/device_token.hpp"
#include "pallasbench/orchestrate/paths.hpp"
#include "pallasbench/orchestrate/phase_clock.hpp"
#include "pallasbench/orchestrate/protocol.hpp"
#include "pallasbench/orchestrate/run_trace.hpp"
#include "pallasbench/orchestrate/seeds.hpp"
#include "pallasbench/orchestrate/task_result.hpp"
#include "pallasbench/orchestrate/worker_pool.hpp"

namespace pallasbench {

struct candidate_spec {
  candidate_kind kind = candidate_kind::suite;
  std::filesystem::path file;  // for user
  std::string sha256;          // of the source, as the reference process read it (resume key and record)
  std::string source;          // for user: the file as the reference process read it
  std::string bundled_source;  // for user: the source and the shared kernel modules it imports
  std::string encoding;        // for user: the source's encoding (PEP 263), for the tracer's copy
  std::string refused;         // for user: why the source is refused unrun (too large, undecodable)
  // How the record names a user candidate when its file is not its name: "request:<id>" for a
  // batch's inline source, whose file is a temporary copy gone after the run; empty: the file.
  std::string recorded_name;
  std::string diff;  // for user: unified, from the task's file to this source ("" when the same)
};

// One evaluation a run asks for, whole: the task, the candidate, the complete configuration (size,
// dtype, device, seeds, timeout, seed, shard) and the request's id when a batch gave one. Built
// once (the CLI's make_jobs); the resume key, the shard key, the memory estimate, the evaluation
// and its record all read this one object, and nothing patches it afterwards.
struct evaluation_job {
  task_info task;
  candidate_spec candidate;
  run_config config;
  std::string request_id;

  // The record's config_hash: what --resume looks for.
  [[nodiscard]] std::string resume_key() const { return config_hash(task.name, candidate.sha256, config); }
};

// Compiler artifacts (GPU only): where PTX/SASS/pass trail go, and whether at all.
struct artifact_options {
  artifact_mode mode = artifact_mode::files;
  bool pass_trail = false;
  std::filesystem::path records_dir;  // files: written under records_dir/artifacts/ (empty: inline)
  // How long the harness waits for the capture to finish once the checks are done (never longer
  // than the evaluation's timeout): past it the executor is restarted, the candidate reloaded for
  // timing, and the record says the artifacts are unavailable. It decides no verdict.
  std::chrono::milliseconds timeout{std::chrono::seconds(60)};
};

struct timing_options {
  bool enabled = true;
  int warmup = 3;               // untimed calls at least, before the warm-up rule may settle
  stdrel_options stopping;      // applied to the kernel and to the XLA reference alike
  double batch_seconds = 0.05;  // samples asked of a worker at once, in time
  // The ceilings the roofline floor divides by (measured this run, or a --ceilings file); without
  // them the floor is not applied, for the reason given.
  std::optional<device_ceilings> ceilings;
  std::string no_ceilings_reason = "no measured ceilings";

  // Seconds of samples per timed series when --timing-budget is not given: interpret-mode wall
  // times mean little and never settle, so CPU runs stay quick.
  [[nodiscard]] static constexpr double default_budget_s(device_kind device) {
    return device == device_kind::gpu ? 2.0 : 0.5;
  }
};

class evaluator {
public:
  evaluator(worker_pool& pool, const scratch_dir& scratch, run_config config, timing_options timing,
            nlohmann::json environment, std::optional<std::string> project_sha, std::string run_id);
  void set_artifacts(artifact_options options) { m_artifacts = std::move(options); }
  // The device this evaluator's workers run on, shared with other lanes: its token orders their
  // GPU work around timed series. Without one the evaluator has a device of its own.
  void set_device(device_slot& device) { m_device = &device; }
  // Every evaluation's span and its phases' spans go to `trace` on `track` (run --trace).
  void set_trace(run_trace& trace, int track);

  // Never throws for a candidate's or worker's failure (it becomes the result's status);
  // rethrows interrupted_error so the caller can stop. The job's configuration is the
  // evaluation's, whole; the two-argument form evaluates at the configuration the evaluator was
  // made with.
  [[nodiscard]] task_result evaluate(const evaluation_job& job);
  [[nodiscard]] task_result evaluate(const task_info& task, const candidate_spec& candidate);
  // The phase of the evaluation in flight (none between evaluations): safe from any thread.
  [[nodiscard]] std::optional<work_phase> current_phase() const { return m_clock.current(); }

private:
  // What the checks keep for the robustness filters: each seed's (output, reference).
  struct evidence {
    std::vector<std::pair<npy_array, npy_array>> seeds;
  };

  // An evaluation at m_config; one that ran out of memory in the lane's executor or reference is
  // evaluated again with the device to this lane alone (evaluator_containment.cpp).
  [[nodiscard]] task_result evaluate_configured(const task_info& task, const candidate_spec& candidate);
  [[nodiscard]] task_result evaluate_attempt(const task_info& task, const candidate_spec& candidate);
  [[nodiscard]] task_result retry_alone(const task_info& task, const candidate_spec& candidate, task_result first);
  // After the retry ran out of memory too: the candidate's failure when its module needs more
  // than the lane's share, the harness's otherwise.
  void blame_out_of_memory_again(task_result& result, std::optional<std::uint64_t> greeted_limit);
  // The lane executor's device pool as it greeted (None on the CPU, or when it is gone).
  std::optional<std::uint64_t> executor_device_limit();

  // ---- the steps of evaluate(), in order ----
  // The record's identity, candidate, seed plan and environment.
  [[nodiscard]] task_result prepare(const task_info& task, const candidate_spec& candidate);
  // Each seed against the reference (the candidate is loaded on the first), then the stress cases.
  void verify(task_result& result, const task_info& task, const candidate_spec& candidate, evidence& kept);
  // The robustness filters, on the seeds' outputs and one perturbation per input.
  void screen(task_result& result, const task_info& task, const evidence& kept);
  // SASS and the ptxas report, whose tools ran in the executor's background since compile: before
  // timing, so that the capture's compiles and tools do not compete with the samples. Waits at
  // most the artifacts' own timeout; a capture that hangs or crashes the executor costs the record
  // its artifacts (with the reason), never its verdict: the executor is replaced and, with
  // `reload`, the candidate loaded and compiled again for timing (evaluator_containment.cpp).
  void collect_artifacts(task_result& result, bool reload);
  void reload_candidate(task_result& result);
  // Timing (evaluator_timing.cpp), on an input set of its own.
  void profile(task_result& result, const task_info& task);
  // A failure of any step: the one place that maps (phase, exception) to a status
  // (evaluator_failures.cpp), replacing the worker that failed.
  void fail(task_result& result, const std::exception_ptr& error);
  // Pending artifacts, filters that could not run, the executor's stderr, the task's scratch.
  void finish(task_result& result, const std::filesystem::path& task_dir);

  // ---- loading (evaluator.cpp) ----
  // Trace (sandboxed tracer), load and analyse (executor; C++), then compile: the module is
  // refused before it is compiled when it holds foreign custom calls.
  void load_candidate(task_result& result, const task_info& task, const candidate_spec& candidate,
                      const protocol::reference_reply& reference);
  protocol::trace_reply trace(task_result& result, const task_info& task, const candidate_spec& candidate,
                              const std::vector<protocol::input_spec>& inputs);
  nlohmann::json call_tracer(task_result& result, worker& tracer, const protocol::trace_request& request,
                             std::chrono::steady_clock::time_point t0);
  // A tracer's failure rethrown with the memory or tmpfs limit it met named in its message.
  [[noreturn]] static void rethrow_with_tracer_limits(const worker& tracer);
  // The memory bounds of the lane's executor and reference (the record's trust.worker_memory).
  [[nodiscard]] nlohmann::json worker_memory() const;
  void analyse(task_result& result, const task_info& task, const nlohmann::json& loaded);
  void compile(task_result& result, const task_info& task);
  // The worker's compiler output, summarised, inlined or filed as m_artifacts says.
  void keep_artifacts(task_result& result, const nlohmann::json& captured);
  // The source_analysis filter on its own, for a module refused before it ran.
  void record_source_analysis(task_result& result) const;

  // ---- checking (evaluator_checks.cpp) ----
  // The reference process's inputs and output for one seed (a stress case's, or with one input
  // perturbed, as `request` says).
  protocol::reference_reply make_reference(protocol::reference_request request);
  [[nodiscard]] protocol::reference_request reference_request(const task_info& task, std::uint64_t seed,
                                                              const std::filesystem::path& dir) const;
  void check_seeds(task_result& result, const task_info& task, const candidate_spec& candidate, evidence& kept);
  void check_stress(task_result& result, const task_info& task);
  // Maps and unlinks the reference output, runs the candidate on the reply's inputs (twice when
  // `second_output` is given) and maps the first output: (reference, output).
  std::pair<npy_array, npy_array> run_candidate(const protocol::reference_reply& reference,
                                                const std::filesystem::path& output,
                                                const std::filesystem::path& second_output);
  // A case's comparison against `reference` judged by the platform rule (check/platform.hpp):
  // where the case needs it, the reference process gives XLA's own output at the task's precision
  // class on `request`'s inputs, compared with the same tolerance.
  [[nodiscard]] comparison judge_case(comparison candidate, protocol::reference_request request,
                                      const npy_array& reference, const tolerance& tol);

  // ---- timing (evaluator_timing.cpp) ----
  // The last timed call's output against the timing inputs' reference: one more batch rechecked,
  // or the failure that ends the evaluation.
  void recheck_timed_output(const std::filesystem::path& output, const npy_array& reference, const task_info& task,
                            const protocol::reference_request& request, nlohmann::json& recheck);
  void check_timing(task_result& result, const task_info& task, const npy_array& reference,
                    const std::vector<std::vector<kernel_launch>>& launches, std::span<const double> kernel_us,
                    std::span<const double> reference_us);
  [[nodiscard]] std::chrono::milliseconds timeout() const { return m_config.waits().command; }

  // Leases of the device's token (device_token.hpp), their waits counted on m_clock; none while
  // the evaluation holds the device alone (retry_alone).
  [[nodiscard]] std::optional<device_token::lease> gpu_work() {
    if (m_alone) return std::nullopt;
    return m_device->token.shared(&m_clock);
  }
  // The device to this lane alone while it lives (an exclusive lease of its token, unless the lane
  // holds it already): inside it gpu_work() takes no lease of its own, so what the timing loop or
  // the retry alone asks of the workers cannot wait on its own lane. `clock` counts the wait.
  class alone_scope {
  public:
    alone_scope(evaluator& e, phase_clock* clock) : m_alone(e.m_alone), m_was(e.m_alone) {
      if (!m_was) m_lease.emplace(e.m_device->token.exclusive(clock));
      m_alone = true;
    }
    ~alone_scope() { m_alone = m_was; }  // before the lease goes
    alone_scope(const alone_scope&) = delete;
    alone_scope& operator=(const alone_scope&) = delete;

  private:
    bool& m_alone;
    bool m_was;
    std::optional<device_token::lease> m_lease;
  };

  worker_pool& m_pool;
  const scratch_dir& m_scratch;
  device_slot m_own_device;
  device_slot* m_device = &m_own_device;
  phase_clock m_clock;          // this evaluation's phases (the record's `phases`)
  run_config m_default_config;  // the constructor's: what evaluate(task, candidate) runs at
  run_config m_config;          // the evaluation in flight's, whole
  timing_options m_timing;
  artifact_options m_artifacts;
  std::optional<module_analysis> m_analysis;       // of the loaded candidate's module
  bool m_below_class = false;                      // its kernels compute below the task's precision class
  std::vector<module_kernel> m_module_kernels;     // the loaded module's kernels (launch check)
  std::optional<seed_plan> m_seeds;                // this evaluation's
  nlohmann::json m_pending_artifacts;              // compile's artifacts while their SASS is still being made
  std::optional<protocol::load_request> m_loaded;  // the module the executor loaded: reloaded after a capture hung
  bool m_alone = false;                            // the device is this lane's alone (an exclusive lease held)
  nlohmann::json m_environment;
  std::optional<std::string> m_project_sha;
  std::string m_run_id;
  run_trace* m_trace = nullptr;
  int m_trace_track = 0;
  std::string m_trace_task;                          // the evaluation in flight, as its phase spans name it
  failure_phase m_phase = failure_phase::reference;  // the step in flight: a failure's blame
};

}  // namespace pallasbench
