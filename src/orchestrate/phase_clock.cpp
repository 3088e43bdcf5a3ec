#include "pallasbench/orchestrate/phase_clock.hpp"

#include <numeric>
#include <string>

namespace pallasbench {
namespace {

std::size_t slot(work_phase phase) { return static_cast<std::size_t>(phase); }

}  // namespace

void phase_clock::start(work_phase base) {
  m_totals.fill(clock::duration::zero());
  m_current = base;
  m_since = clock::now();
  m_running = true;
  publish();
}

void phase_clock::stop() {
  if (!m_running) return;
  const auto now = clock::now();
  m_totals[slot(m_current)] += now - m_since;
  if (m_on_segment) m_on_segment(m_current, m_since, now);
  m_running = false;
  publish();
}

void phase_clock::publish() {
  // Relaxed: readers want the latest phase name, nothing else is ordered by it.
  m_published.store(m_running ? static_cast<std::uint8_t>(slot(m_current)) : k_stopped, std::memory_order_relaxed);
}

std::optional<work_phase> phase_clock::current() const {
  const auto published = m_published.load(std::memory_order_relaxed);
  if (published == k_stopped) return std::nullopt;
  return static_cast<work_phase>(published);
}

void phase_clock::switch_to(work_phase phase) {
  const auto now = clock::now();
  if (m_running) {
    m_totals[slot(m_current)] += now - m_since;
    if (m_on_segment && now > m_since) m_on_segment(m_current, m_since, now);
  }
  m_current = phase;
  m_since = now;
  m_running = true;
  publish();
}

phase_clock::clock::duration phase_clock::running_for() const {
  return m_running ? clock::now() - m_since : clock::duration::zero();
}

phase_clock::scope::scope(phase_clock& owner, work_phase phase)
    : m_owner(owner), m_previous(owner.m_current), m_was_running(owner.m_running) {
  m_owner.switch_to(phase);
}

phase_clock::scope::~scope() {
  if (m_was_running) {
    m_owner.switch_to(m_previous);
  } else {
    m_owner.stop();
    m_owner.m_current = m_previous;
  }
}

double phase_clock::seconds(work_phase phase) const {
  auto d = m_totals[slot(phase)];
  if (phase == m_current) d += running_for();
  return std::chrono::duration<double>(d).count();
}

double phase_clock::total_seconds() const {
  const auto sum = std::accumulate(m_totals.begin(), m_totals.end(), clock::duration::zero()) + running_for();
  return std::chrono::duration<double>(sum).count();
}

nlohmann::json phase_clock::to_json() const {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [phase, name] : enum_names<work_phase>::entries) out[std::string(name) + "_s"] = seconds(phase);
  return out;
}

}  // namespace pallasbench
