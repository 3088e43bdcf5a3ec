#include "pallasbench/orchestrate/run_trace.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "pallasbench/core/error.hpp"

namespace pallasbench {

using nlohmann::json;

void run_trace::name_track(int track, const std::string& name) {
  const std::lock_guard lock(m_mutex);
  m_events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", 1}, {"tid", track}, {"args", {{"name", name}}}});
}

void run_trace::span(int track, const std::string& name, const std::string& category, clock::time_point begin,
                     clock::time_point end, json args) {
  const auto us = [&](clock::time_point t) { return std::chrono::duration<double, std::micro>(t - m_origin).count(); };
  json event{{"ph", "X"},
             {"name", name},
             {"cat", category},
             {"pid", 1},
             {"tid", track},
             {"ts", us(begin)},
             {"dur", std::max(0.0, us(end) - us(begin))}};
  if (!args.is_null()) event["args"] = std::move(args);
  const std::lock_guard lock(m_mutex);
  m_events.push_back(std::move(event));
}

json run_trace::to_json() const {
  const std::lock_guard lock(m_mutex);
  return {{"traceEvents", m_events}, {"displayTimeUnit", "ms"}};
}

void run_trace::write(const std::filesystem::path& file) const {
  const auto text = to_json().dump();
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (out) out << text << '\n';
  if (!out || !out.flush())
    throw error(fmt::format("--trace {}: cannot write the trace: {}", file.string(), std::strerror(errno)));
}

}  // namespace pallasbench
