#include "pallasbench/orchestrate/runner.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "pallasbench/core/interrupt.hpp"
#include "pallasbench/orchestrate/job_board.hpp"
#include "pallasbench/orchestrate/memory_budget.hpp"
#include "pallasbench/orchestrate/task_record.hpp"

namespace pallasbench {
namespace {

using nlohmann::json;
using clock = std::chrono::steady_clock;

// The job each lane holds (an index into the jobs), or k_idle: written by the lane, read by the
// emitting thread for the live progress line.
using lane_holding = std::vector<std::atomic<std::size_t>>;
constexpr std::size_t k_idle = static_cast<std::size_t>(-1);

// One lane's thread: jobs one after another until none is left or the run stops.
void lane_loop(evaluator& eval, std::size_t lane, std::size_t lanes, const std::vector<evaluation_job>& jobs,
               job_board& board, std::atomic<std::size_t>& holding) {
  while (const auto index = board.take()) {
    holding.store(*index, std::memory_order_relaxed);
    const auto& job = jobs[*index];
    settled_job settled;
    const auto start = clock::now();
    try {
      if (interrupted()) throw interrupted_error();
      auto result = eval.evaluate(job);
      result.wall_s = std::chrono::duration<double>(clock::now() - start).count();
      result.lane = lane;
      result.lanes = lanes;
      settled.record = to_record(result);
    } catch (const interrupted_error&) {
      settled.interrupted = true;
    } catch (...) {
      settled.error = std::current_exception();
    }
    settled.seconds = std::chrono::duration<double>(clock::now() - start).count();
    const bool stop = settled.interrupted || settled.error;
    holding.store(k_idle, std::memory_order_relaxed);
    board.settle(*index, std::move(settled));
    if (stop) break;
  }
}

// What each busy lane is doing now: its job and its evaluator's phase.
std::vector<lane_activity> lane_activities(const std::vector<evaluator*>& lanes, const lane_holding& holding,
                                           const std::vector<evaluation_job>& jobs) {
  std::vector<lane_activity> busy;
  for (std::size_t lane = 0; lane < holding.size(); ++lane) {
    const auto index = holding[lane].load(std::memory_order_relaxed);
    if (index == k_idle) continue;
    const auto phase = lanes[lane]->current_phase();
    busy.push_back({lane, fmt::format("{} ({})", jobs[index].task.name, jobs[index].config.label()),
                    phase ? std::string(to_string(*phase)) : std::string()});
  }
  return busy;
}

}  // namespace

run_outcome runner::run(const std::vector<task_info>& tasks, const candidate_for& candidate, const run_config& config) {
  std::vector<evaluation_job> jobs;
  for (const auto& task : tasks) jobs.push_back({task, candidate(task), config, ""});
  return run(jobs);
}

run_outcome runner::run(const std::vector<evaluation_job>& jobs) {
  run_outcome outcome;
  const std::size_t total = jobs.size();
  std::vector<const json*> recorded(total, nullptr);
  std::vector<std::size_t> pending;
  for (std::size_t i = 0; i < total; ++i) {
    if (const auto it = m_recorded.find(jobs[i].resume_key()); it != m_recorded.end())
      recorded[i] = &it->second;
    else
      pending.push_back(i);
  }

  std::size_t told = 0;  // the progress line's position
  const auto tell_recorded = [&](std::size_t i) {
    auto row = summary_row::from_record(*recorded[i]);
    row.recorded = true;
    m_out.task_finished({++told, total, task_event::recorded_before, 0, jobs[i].task.name, jobs[i].config.label()},
                        &row, recorded[i]);
    ++outcome.recorded;
    outcome.rows.push_back(std::move(row));
    outcome.records.push_back(*recorded[i]);
  };
  std::exception_ptr failure;  // the first harness failure: rethrown once every lane stopped
  const auto tell_settled = [&](std::size_t i, settled_job& job) {
    const auto size = jobs[i].config.label();
    if (job.error) {
      if (!failure) failure = job.error;
      return;
    }
    if (job.interrupted) {
      outcome.interrupted = true;
      m_out.task_finished({++told, total, task_event::interrupted, 0, jobs[i].task.name, size}, nullptr, nullptr);
      return;
    }
    auto& record = *job.record;
    if (m_writer) {
      try {
        m_writer->append(record);
      } catch (const record_write_error& e) {
        if (!failure)
          failure = std::make_exception_ptr(record_write_error(fmt::format(
              "task '{}' ({}): {}; stopping, as no later record could be kept", jobs[i].task.name, size, e.what())));
        return;
      }
    }
    auto row = summary_row::from_record(record);
    m_out.task_finished({++told, total, task_event::evaluated, job.seconds, jobs[i].task.name, size}, &row, &record);
    outcome.rows.push_back(std::move(row));
    outcome.records.push_back(std::move(record));
  };

  if (m_order == record_order::completion)
    for (std::size_t i = 0; i < total; ++i)
      if (recorded[i]) tell_recorded(i);
  std::vector<std::uint64_t> host_bytes(total, 0);
  if (m_memory_budget > 0 || m_live_memory.available)
    for (const auto i : pending)
      host_bytes[i] = evaluation_host_bytes(jobs[i].task, jobs[i].config.size, jobs[i].config.dtype) + m_tracer_bytes;
  job_board board(pending, std::move(host_bytes), m_memory_budget, m_live_memory);
  std::vector<std::optional<settled_job>> settled(total);
  std::size_t next = 0;  // selection order: the next job to tell
  const auto tell_in_order = [&] {
    for (; next < total && (recorded[next] || settled[next]); ++next) {
      if (recorded[next])
        tell_recorded(next);
      else
        tell_settled(next, *settled[next]);
    }
  };
  {
    const std::size_t lanes = std::max<std::size_t>(1, std::min(m_lanes.size(), pending.size()));
    lane_holding holding(pending.empty() ? 0 : lanes);
    for (auto& h : holding) h.store(k_idle);
    std::vector<std::jthread> threads;
    for (std::size_t lane = 0; lane < holding.size(); ++lane)
      threads.emplace_back([&, lane] { lane_loop(*m_lanes[lane], lane, lanes, jobs, board, holding[lane]); });
    while (!board.finished()) {
      for (auto& [i, job] : board.collect(std::chrono::milliseconds(100))) {
        if (job.interrupted || job.error) board.stop();
        if (m_order == record_order::completion)
          tell_settled(i, job);
        else
          settled[i] = std::move(job);
      }
      if (m_order == record_order::selection) tell_in_order();
      board.handled();
      m_out.lanes_busy(lane_activities(m_lanes, holding, jobs));
      if (interrupted()) board.stop();
      if (failure) {
        board.stop();
        request_interrupt();  // the lanes abandon their jobs: no later record could be kept
      }
    }
  }  // every lane has stopped
  if (m_order == record_order::selection) {
    tell_in_order();
    // After a stop, what finished beyond the first gap is kept too, in order.
    for (; next < total; ++next)
      if (settled[next]) tell_settled(next, *settled[next]);
  }
  if (failure) std::rethrow_exception(failure);
  if (interrupted()) outcome.interrupted = true;
  return outcome;
}

}  // namespace pallasbench
