// Where an evaluation's wall time goes: every instant of it belongs to exactly one phase, so the
// phases add up to the evaluation's wall time (the record's `phases`, `run`'s totals).
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>

#include <nlohmann/json.hpp>

#include "pallasbench/core/enum_names.hpp"

namespace pallasbench {

// The record's `phases` keys, less the "_s".
enum class work_phase { reference, trace, compile, checks, filters, artifacts, timing, wait };

template <>
struct enum_names<work_phase> {
  static constexpr std::string_view what = "work phase";
  static constexpr std::array entries{
      std::pair{work_phase::reference, std::string_view("reference")},
      std::pair{work_phase::trace, std::string_view("trace")},
      std::pair{work_phase::compile, std::string_view("compile")},
      std::pair{work_phase::checks, std::string_view("checks")},
      std::pair{work_phase::filters, std::string_view("filters")},
      std::pair{work_phase::artifacts, std::string_view("artifacts")},
      std::pair{work_phase::timing, std::string_view("timing")},
      std::pair{work_phase::wait, std::string_view("wait")},
  };
};

inline constexpr std::size_t k_work_phases = enum_names<work_phase>::entries.size();

// A partition of wall time: one phase runs at a time; entering a phase pauses the one it
// interrupts (a scope), which resumes when the scope ends. Steady clock, host seconds. One thread
// runs the clock; current() may be read from any.
class phase_clock {
public:
  using clock = std::chrono::steady_clock;

  // Clears the totals and starts counting in `base`.
  void start(work_phase base);
  // Stops counting (the totals stay); a later scope or start() counts again.
  void stop();

  class scope {
  public:
    scope(const scope&) = delete;
    scope& operator=(const scope&) = delete;
    ~scope();

  private:
    friend class phase_clock;
    scope(phase_clock& owner, work_phase phase);
    phase_clock& m_owner;
    work_phase m_previous;
    bool m_was_running;
  };
  // Counts in `phase` until the scope ends, then in the phase it interrupted.
  [[nodiscard]] scope enter(work_phase phase) { return scope(*this, phase); }

  // The phase counting now, none while stopped: for a live progress line, read from another
  // thread while the owner switches phases (one relaxed atomic store per switch).
  [[nodiscard]] std::optional<work_phase> current() const;

  // Called with each segment of one phase as it closes (a switch, or stop()): a run trace's
  // spans (run_trace.hpp). Called on the clock's thread.
  using segment_listener = std::function<void(work_phase, clock::time_point begin, clock::time_point end)>;
  void on_segment(segment_listener listener) { m_on_segment = std::move(listener); }

  [[nodiscard]] double seconds(work_phase phase) const;
  [[nodiscard]] double total_seconds() const;
  // {"reference_s": .., ..., "wait_s": ..}
  [[nodiscard]] nlohmann::json to_json() const;

private:
  void switch_to(work_phase phase);
  void publish();
  [[nodiscard]] clock::duration running_for() const;

  static constexpr std::uint8_t k_stopped = k_work_phases;  // m_published while not running

  std::array<clock::duration, k_work_phases> m_totals{};
  work_phase m_current = work_phase::checks;
  clock::time_point m_since{};
  bool m_running = false;
  std::atomic<std::uint8_t> m_published{k_stopped};  // m_current while running, else k_stopped
  segment_listener m_on_segment;
};

}  // namespace pallasbench
