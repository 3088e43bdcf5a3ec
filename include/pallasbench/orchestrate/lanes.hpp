// The lanes of a run: each a worker pool (reference, executor, tracer), a scratch folder and an
// evaluator of its own, on one of the run's devices. Lanes evaluate in parallel (the runner's
// threads); lanes on one device share its token (device_token.hpp).
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pallasbench/orchestrate/device_token.hpp"
#include "pallasbench/orchestrate/evaluator.hpp"
#include "pallasbench/orchestrate/worker_pool.hpp"

namespace pallasbench {

// What every lane's evaluator is made with.
struct evaluator_setup {
  run_config config;
  timing_options timing;
  artifact_options artifacts;
  nlohmann::json environment;
  std::optional<std::string> project_sha;
  std::string run_id;
};

// The worker pools of `count` lanes over `devices` (lane k on device k mod their number), each
// with its reference and executor started now, their greetings not awaited: their JAX start
// overlaps what the caller does next (describing the device). The first lane adopts `first`, the
// pool that already described the suite; the others get pools of their own from `options`, each
// told its device's CUDA_VISIBLE_DEVICES.
[[nodiscard]] std::vector<std::unique_ptr<worker_pool>> start_lane_pools(std::unique_ptr<worker_pool> first,
                                                                         const worker_options& options,
                                                                         const std::deque<device_slot>& devices,
                                                                         std::size_t count);

class lane_set {
public:
  // One lane per pool, lane k on device k mod their number.
  lane_set(std::vector<std::unique_ptr<worker_pool>> pools, std::deque<device_slot>& devices,
           const evaluator_setup& setup);
  lane_set(std::unique_ptr<worker_pool> first, const worker_options& options, std::deque<device_slot>& devices,
           std::size_t count, const evaluator_setup& setup)
      : lane_set(start_lane_pools(std::move(first), options, devices, count), devices, setup) {}
  lane_set(const lane_set&) = delete;
  lane_set& operator=(const lane_set&) = delete;
  // Every lane's workers are signalled at once, then reaped: their exits (a CUDA context's
  // teardown each) overlap instead of following one another.
  ~lane_set();

  // Every lane's reference, executor and tracer start now, in parallel (their JAX imports
  // overlap); `spare_tracers`: a user candidate's tracer is started ahead of its turn.
  void prestart(candidate_kind kind, bool spare_tracers);
  // Lane k's evaluations and phases go to `trace` on track k + 1, named "lane k (GPU i)".
  void trace_to(run_trace& trace);
  [[nodiscard]] std::vector<evaluator*> evaluators() const;
  [[nodiscard]] std::size_t size() const { return m_lanes.size(); }
  [[nodiscard]] worker_pool& pool(std::size_t lane) { return *m_lanes.at(lane).pool; }

private:
  struct lane {
    std::unique_ptr<worker_pool> pool;
    std::unique_ptr<scratch_dir> scratch;  // its own: lanes may evaluate the same task at once
    std::unique_ptr<evaluator> eval;
    int device_index = 0;
  };
  std::vector<lane> m_lanes;
};

// Lanes for `jobs` evaluations when --jobs asks for `asked` (0: the host's cores less one, at
// least one): never more lanes than jobs.
[[nodiscard]] std::size_t lane_count(std::size_t asked, std::size_t jobs, unsigned cores);

}  // namespace pallasbench
