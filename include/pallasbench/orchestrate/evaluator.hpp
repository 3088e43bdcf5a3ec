// Evaluating one candidate on one task: reference, load, seeds, determinism, timing.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "pallasbench/analyze/module_analysis.hpp"
#include "pallasbench/check/npy.hpp"
#include "pallasbench/orchestrate/paths.hpp"
#include "pallasbench/record/record.hpp"
#include "pallasbench/orchestrate/seeds.hpp"
#include "pallasbench/measure/stopping.hpp"
#include "pallasbench/measure/timing_checks.hpp"
#include "pallasbench/orchestrate/worker_pool.hpp"

namespace pallasbench {

struct candidate_spec {
  std::string kind = "suite";  // "suite": the task's own kernel; "user": a file
  std::filesystem::path file;  // for "user"
  std::string sha256;          // of the source (resume key)
  std::string source;          // for "user": the file as the reference process read it
  std::string bundled_source;  // for "user": the source and the shared kernel modules it imports
  std::string encoding;        // for "user": the source's encoding (PEP 263), for the tracer's copy
  std::string refused;         // for "user": why the source is refused unrun (too large, undecodable)
};

// Compiler artifacts (GPU only): where PTX/SASS/pass trail go, and whether at all.
struct artifact_options {
  std::string mode = "none";  // inline | files | none
  bool pass_trail = false;
  std::filesystem::path records_dir;  // files: written under records_dir/artifacts/
};

struct timing_options {
  bool enabled = true;
  int warmup = 3;
  stdrel_options stopping;      // applied to the kernel and to the XLA reference alike
  double batch_seconds = 0.05;  // samples asked of a worker at once, in time
  // The ceilings the roofline floor divides by (measured this run, or a --ceilings file); without
  // them the floor is not applied, for the reason given.
  std::optional<device_ceilings> ceilings;
  std::string no_ceilings_reason = "no measured ceilings";
};

class evaluator {
public:
  evaluator(worker_pool& pool, const scratch_dir& scratch, run_config config, timing_options timing,
            nlohmann::json environment, std::optional<std::string> project_sha, std::string run_id);
  void set_artifacts(artifact_options options) { m_artifacts = std::move(options); }

  // Never throws for a candidate's or worker's failure (it becomes the result's status);
  // rethrows interrupted_error so the caller can stop.
  [[nodiscard]] task_result evaluate(const task_info& task, const candidate_spec& candidate);

private:
  // Trace (sandboxed tracer), load and analyse (executor; C++), then compile: the module is
  // refused before it is compiled when it holds foreign custom calls.
  void load_candidate(task_result& result, const task_info& task, const candidate_spec& candidate,
                      const nlohmann::json& reference_reply);
  nlohmann::json trace(task_result& result, const task_info& task, const candidate_spec& candidate,
                       const nlohmann::json& input_specs);
  nlohmann::json call_tracer(task_result& result, worker& tracer, const nlohmann::json& request,
                             std::chrono::steady_clock::time_point t0);
  void analyse(task_result& result, const task_info& task, const nlohmann::json& loaded);
  void compile(task_result& result, const task_info& task);
  // The reference process's inputs and output for one seed; `variant` adds {"stress": case} or
  // {"perturb": input index} to the request.
  nlohmann::json make_reference(const task_info& task, std::uint64_t seed, const std::filesystem::path& dir,
                                const nlohmann::json& variant = nlohmann::json::object());
  // What the checks keep for the robustness filters: each seed's output and reference.
  struct evidence {
    std::vector<std::pair<npy_array, npy_array>> seeds;  // (output, reference)
  };
  void check_seeds(task_result& result, const task_info& task, const candidate_spec& candidate, evidence& kept);
  // The task's stress cases, each on its own seed, against the float64 reference.
  void check_stress(task_result& result, const task_info& task);
  void check_robustness(task_result& result, const task_info& task, evidence& kept);
  // Maps and unlinks the reference output, runs the candidate on the reply's inputs (twice when
  // `second_output` is given) and maps the first output: (reference, output).
  std::pair<npy_array, npy_array> run_candidate(const nlohmann::json& reference_reply,
                                                const std::filesystem::path& output,
                                                const std::filesystem::path& second_output);
  // The worker's compiler output, summarised, inlined or filed as m_artifacts says.
  void keep_artifacts(task_result& result, const nlohmann::json& captured);
  // Collects SASS and the ptxas report, whose tools ran in the worker's background since load.
  void finish_artifacts(task_result& result);
  // The source_analysis filter on its own, for a module refused before it ran.
  void record_source_analysis(task_result& result) const;
  // Timing (evaluator_timing.cpp): on an input set of its own; every batch's last output is
  // rechecked, then every sample must hold a launch of the module's kernels and none may beat
  // the roofline floor.
  void time_kernel(task_result& result, const task_info& task);
  void check_timing(task_result& result, const task_info& task, const npy_array& reference,
                    const std::vector<std::vector<kernel_launch>>& launches, std::span<const double> kernel_us,
                    std::span<const double> reference_us);
  // The next timing request of one side: a batch sized to ~batch_seconds of host time from what
  // a sample has cost so far.
  nlohmann::json batch_request(nlohmann::json request, double typical_cost_us, bool warm) const;
  [[nodiscard]] std::chrono::milliseconds timeout() const;

  worker_pool& m_pool;
  const scratch_dir& m_scratch;
  run_config m_config;
  timing_options m_timing;
  artifact_options m_artifacts;
  std::optional<module_analysis> m_analysis;    // of the loaded candidate's module
  std::vector<module_kernel> m_module_kernels;  // the loaded module's kernels (launch check)
  std::optional<seed_plan> m_seeds;             // this evaluation's
  nlohmann::json m_pending_artifacts;           // load's artifacts while their SASS is still being made
  nlohmann::json m_environment;
  std::optional<std::string> m_project_sha;
  std::string m_run_id;
  std::string m_phase;
};

}  // namespace pallasbench
