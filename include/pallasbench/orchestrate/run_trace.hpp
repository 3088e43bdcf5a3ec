// A timeline of a run in the Chrome trace event format (ui.perfetto.dev, chrome://tracing):
// the setup's steps on track 0, each lane's evaluations and their phases (phase_clock.hpp) on a
// track of its own. `run --trace FILE`: where the wall time went, lane by lane and instant by
// instant, which the records' per-evaluation phase totals cannot show (who waited for whom).
// Hand-written: the format is a JSON list of events, and no library here writes it.
#pragma once

#include <chrono>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pallasbench {

class run_trace {
public:
  using clock = std::chrono::steady_clock;

  run_trace() : m_origin(clock::now()) {}

  // Safe from any thread.
  void name_track(int track, const std::string& name);
  void span(int track, const std::string& name, const std::string& category, clock::time_point begin,
            clock::time_point end, nlohmann::json args = nullptr);

  // {"traceEvents": [...], "displayTimeUnit": "ms"}: complete events ("ph": "X") in microseconds
  // since the trace began, track names as metadata events.
  [[nodiscard]] nlohmann::json to_json() const;
  // Throws pallasbench::error naming the file when it cannot be written.
  void write(const std::filesystem::path& file) const;

private:
  mutable std::mutex m_mutex;
  clock::time_point m_origin;
  std::vector<nlohmann::json> m_events;
};

// A span from construction to destruction on `trace` (none: does nothing), for the setup steps.
class trace_step {
public:
  trace_step(run_trace* trace, int track, std::string name)
      : m_trace(trace), m_track(track), m_name(std::move(name)), m_begin(run_trace::clock::now()) {}
  trace_step(const trace_step&) = delete;
  trace_step& operator=(const trace_step&) = delete;
  ~trace_step() {
    if (m_trace) m_trace->span(m_track, m_name, "setup", m_begin, run_trace::clock::now());
  }

private:
  run_trace* m_trace;
  int m_track;
  std::string m_name;
  run_trace::clock::time_point m_begin;
};

}  // namespace pallasbench
