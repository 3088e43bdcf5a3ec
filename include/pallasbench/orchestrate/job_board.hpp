// The jobs of a run as its lanes take and settle them and the emitting thread collects them. With
// a host-memory budget a lane does not take a job whose estimated memory does not fit beside the
// jobs in flight: it takes a later one that fits, or waits for one to settle (LARGE runs of 7
// lanes were killed by the H200 host's OOM killer, 128 GiB, on 2026-12-04).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace pallasbench {

// What became of a job a lane took.
struct settled_job {
  std::optional<nlohmann::json> record;  // evaluated
  bool interrupted = false;              // abandoned on Ctrl-C (no record)
  std::exception_ptr error;              // the harness itself failed (not a candidate's failure)
  double seconds = 0;
};

// Admission against the host's memory as it is at each take, beside the budget fixed at the
// start: the estimates of the jobs in flight and of the next one must fit in what is available
// now, less `reserve`. The start's reading misses what the host's memory does later (the lanes'
// workers keep what they grew to; other processes come and go): the 8-lane LARGE runs of
// 2026-12-04 were OOM-killed with their jobs' estimates within the budget. A job's memory already
// in use is counted twice (gone from what is available, and still in its estimate), so it errs
// towards fewer jobs at once, never more.
struct live_memory {
  std::function<std::optional<std::uint64_t>()> available;  // MemAvailable now; none: unknown
  std::uint64_t reserve = 0;                                // bytes left free for everything else
};

class job_board {
public:
  // `pending`: the jobs' indices in the order they are taken. `host_bytes` (by job index, or
  // empty) and `budget` (bytes, 0: none): the memory the jobs in flight may hold together by
  // their estimates; `live` (when it has a reading function): what is available now must hold
  // them too. A job that fits neither still runs alone, when nothing else does.
  explicit job_board(std::vector<std::size_t> pending, std::vector<std::uint64_t> host_bytes = {},
                     std::uint64_t budget = 0, live_memory live = {})
      : m_pending(pending.begin(), pending.end()),
        m_host_bytes(std::move(host_bytes)),
        m_budget(budget),
        m_live(std::move(live)) {}

  // The first pending job whose memory fits, waiting while none does; none once all are taken or
  // the run stops.
  [[nodiscard]] std::optional<std::size_t> take();
  // Hands a job's outcome over and waits until the emitting thread has dealt with it (written its
  // record, when the order allows): with one lane, a record is on disk before the next job starts.
  void settle(std::size_t index, settled_job job);
  // The emitting thread is done with what it last collected.
  void handled();
  // Lanes take no more jobs (a waiting lane gives up); those in flight still settle.
  void stop();
  // Waits at most `tick` (Ctrl-C is polled between ticks) for jobs settled since the last call.
  [[nodiscard]] std::vector<std::pair<std::size_t, settled_job>> collect(std::chrono::milliseconds tick);
  [[nodiscard]] bool finished() const;
  // How many times a lane waited for memory (each pass in which no pending job fitted).
  [[nodiscard]] std::size_t memory_waits() const;

private:
  [[nodiscard]] std::uint64_t bytes_of(std::size_t index) const;

  mutable std::mutex m_mutex;
  std::condition_variable m_changed;
  std::deque<std::size_t> m_pending;
  std::vector<std::uint64_t> m_host_bytes;
  std::uint64_t m_budget = 0;
  live_memory m_live;
  std::uint64_t m_in_flight_bytes = 0;
  std::vector<std::pair<std::size_t, settled_job>> m_settled;
  std::size_t m_in_flight = 0;
  std::size_t m_collections = 0, m_handled = 0;  // collect() calls, and how many were dealt with
  std::size_t m_memory_waits = 0;
  bool m_stopped = false;
};

}  // namespace pallasbench
