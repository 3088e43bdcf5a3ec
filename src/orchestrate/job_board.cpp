#include "pallasbench/orchestrate/job_board.hpp"

#include <algorithm>
#include <iterator>

namespace pallasbench {
namespace {

constexpr auto k_live_memory_poll = std::chrono::milliseconds(500);

}  // namespace

std::uint64_t job_board::bytes_of(std::size_t index) const {
  return index < m_host_bytes.size() ? m_host_bytes[index] : 0;
}

std::optional<std::size_t> job_board::take() {
  std::unique_lock lock(m_mutex);
  for (;;) {
    if (m_stopped || m_pending.empty()) return std::nullopt;
    // Read once a pass: what is available now, less what must stay free (none: no live limit).
    std::optional<std::uint64_t> room;
    if (m_live.available && m_in_flight > 0)
      if (const auto available = m_live.available())
        room = *available > m_live.reserve ? *available - m_live.reserve : 0;
    const auto fits = [&](std::size_t index) {
      const auto together = m_in_flight_bytes + bytes_of(index);
      if (m_in_flight == 0) return true;
      return (m_budget == 0 || together <= m_budget) && (!room || together <= *room);
    };
    // Nothing in flight: the next job runs whatever its size (fits says so), so none waits forever.
    if (const auto it = std::find_if(m_pending.begin(), m_pending.end(), fits); it != m_pending.end()) {
      const auto next = *it;
      m_pending.erase(it);
      ++m_in_flight;
      m_in_flight_bytes += bytes_of(next);
      return next;
    }
    ++m_memory_waits;
    // A job settles (memory freed) or the run stops; with a live limit, memory may also come
    // free in between (a worker returning what it held): read it again after a while.
    if (m_live.available)
      m_changed.wait_for(lock, k_live_memory_poll);
    else
      m_changed.wait(lock);
  }
}

void job_board::settle(std::size_t index, settled_job job) {
  std::unique_lock lock(m_mutex);
  m_settled.emplace_back(index, std::move(job));
  --m_in_flight;
  m_in_flight_bytes -= bytes_of(index);
  const auto handed = m_collections;
  m_changed.notify_all();
  m_changed.wait(lock, [&] { return m_handled > handed; });
}

void job_board::handled() {
  {
    const std::lock_guard lock(m_mutex);
    m_handled = m_collections;
  }
  m_changed.notify_all();
}

void job_board::stop() {
  {
    const std::lock_guard lock(m_mutex);
    m_stopped = true;
  }
  m_changed.notify_all();
}

std::vector<std::pair<std::size_t, settled_job>> job_board::collect(std::chrono::milliseconds tick) {
  std::unique_lock lock(m_mutex);
  m_changed.wait_for(lock, tick, [this] { return !m_settled.empty(); });
  std::vector<std::pair<std::size_t, settled_job>> out(std::make_move_iterator(m_settled.begin()),
                                                       std::make_move_iterator(m_settled.end()));
  m_settled.clear();
  ++m_collections;
  return out;
}

bool job_board::finished() const {
  const std::lock_guard lock(m_mutex);
  return m_in_flight == 0 && (m_stopped || m_pending.empty()) && m_settled.empty();
}

std::size_t job_board::memory_waits() const {
  const std::lock_guard lock(m_mutex);
  return m_memory_waits;
}

}  // namespace pallasbench
