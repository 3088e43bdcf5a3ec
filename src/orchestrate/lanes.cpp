#include "pallasbench/orchestrate/lanes.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace pallasbench {

std::vector<std::unique_ptr<worker_pool>> start_lane_pools(std::unique_ptr<worker_pool> first,
                                                           const worker_options& options,
                                                           const std::deque<device_slot>& devices, std::size_t count) {
  std::vector<std::unique_ptr<worker_pool>> pools;
  for (std::size_t k = 0; k < std::max<std::size_t>(count, 1); ++k) {
    if (k == 0 && first) {
      pools.push_back(std::move(first));
    } else {
      auto o = options;
      o.visible_devices = devices.at(k % devices.size()).visible;
      pools.push_back(std::make_unique<worker_pool>(o));
    }
    pools.back()->start_trusted();
  }
  return pools;
}

lane_set::lane_set(std::vector<std::unique_ptr<worker_pool>> pools, std::deque<device_slot>& devices,
                   const evaluator_setup& setup) {
  for (std::size_t k = 0; k < pools.size(); ++k) {
    auto& device = devices.at(k % devices.size());
    lane l;
    l.pool = std::move(pools[k]);
    l.scratch = std::make_unique<scratch_dir>();
    l.eval = std::make_unique<evaluator>(*l.pool, *l.scratch, setup.config, setup.timing, setup.environment,
                                         setup.project_sha, setup.run_id);
    l.eval->set_artifacts(setup.artifacts);
    l.eval->set_device(device);
    l.device_index = device.index;
    m_lanes.push_back(std::move(l));
  }
}

lane_set::~lane_set() {
  for (auto& l : m_lanes) l.pool->signal_kill();
}

void lane_set::prestart(candidate_kind kind, bool spare_tracers) {
  // Processes first, greetings after: every lane's JAX start runs at once.
  for (auto& l : m_lanes) l.pool->start_trusted();
  for (auto& l : m_lanes) {
    l.pool->keep_spare_tracer(spare_tracers);
    l.pool->prestart(kind);
  }
}

void lane_set::trace_to(run_trace& trace) {
  for (std::size_t k = 0; k < m_lanes.size(); ++k) {
    const int track = static_cast<int>(k) + 1;
    trace.name_track(track, fmt::format("lane {} (device {})", k, m_lanes[k].device_index));
    m_lanes[k].eval->set_trace(trace, track);
  }
}

std::vector<evaluator*> lane_set::evaluators() const {
  std::vector<evaluator*> out;
  for (const auto& l : m_lanes) out.push_back(l.eval.get());
  return out;
}

std::size_t lane_count(std::size_t asked, std::size_t jobs, unsigned cores) {
  const std::size_t wanted = asked > 0 ? asked : std::max(1U, cores > 1 ? cores - 1 : 1U);
  return std::max<std::size_t>(1, std::min(wanted, jobs));
}

}  // namespace pallasbench
