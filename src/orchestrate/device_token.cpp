#include "pallasbench/orchestrate/device_token.hpp"

namespace pallasbench {
namespace {

// Waits on `changed` until `ready`, the time counted as work_phase::wait when there is a clock.
template <class Ready>
void wait_counted(std::condition_variable& changed, std::unique_lock<std::mutex>& lock, Ready ready,
                  phase_clock* clock) {
  if (ready()) return;
  if (!clock) {
    changed.wait(lock, ready);
    return;
  }
  const auto waiting = clock->enter(work_phase::wait);
  changed.wait(lock, ready);
}

}  // namespace

device_token::lease::~lease() {
  if (m_token) m_token->release(m_exclusive);
}

device_token::lease device_token::shared(phase_clock* clock) {
  std::unique_lock lock(m_mutex);
  // A queued exclusive lease (m_next_ticket > m_serving) goes first: timing is never starved.
  const auto free = [this] { return !m_exclusive && m_next_ticket == m_serving; };
  wait_counted(m_changed, lock, free, clock);
  ++m_shared;
  return lease(this, false);
}

device_token::lease device_token::exclusive(phase_clock* clock) {
  std::unique_lock lock(m_mutex);
  const std::size_t ticket = m_next_ticket++;
  const auto mine = [&] { return !m_exclusive && m_shared == 0 && m_serving == ticket; };
  wait_counted(m_changed, lock, mine, clock);
  m_exclusive = true;
  return lease(this, true);
}

void device_token::release(bool exclusive) {
  {
    const std::lock_guard lock(m_mutex);
    if (exclusive) {
      m_exclusive = false;
      ++m_serving;
    } else {
      --m_shared;
    }
  }
  m_changed.notify_all();
}

std::size_t device_token::shared_holders() const {
  const std::lock_guard lock(m_mutex);
  return m_shared;
}

bool device_token::exclusive_held() const {
  const std::lock_guard lock(m_mutex);
  return m_exclusive;
}

}  // namespace pallasbench
