#include "pallasbench/report/live_line.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace pallasbench {
namespace {

constexpr std::string_view k_ellipsis = "...";

bool is_continuation_byte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

}  // namespace

std::optional<double> eta_seconds(const live_status& status) {
  if (status.evaluated == 0) return std::nullopt;
  const auto remaining = status.total > status.done ? status.total - status.done : 0;
  return status.elapsed_s / static_cast<double>(status.evaluated) * static_cast<double>(remaining);
}

std::string format_clock(double seconds) {
  const auto whole = static_cast<long long>(std::floor(std::max(seconds, 0.0)));
  const auto h = whole / 3600, m = whole / 60 % 60, s = whole % 60;
  return h > 0 ? fmt::format("{}:{:02}:{:02}", h, m, s) : fmt::format("{}:{:02}", m, s);
}

std::string fit_width(std::string text, std::size_t width) {
  if (text.size() <= width) return text;
  if (width <= k_ellipsis.size()) return std::string(k_ellipsis.substr(0, width));
  auto cut = width - k_ellipsis.size();
  while (cut > 0 && is_continuation_byte(text[cut])) --cut;  // keep whole UTF-8 sequences
  text.resize(cut);
  return text.append(k_ellipsis);
}

std::string live_line(const live_status& status, std::size_t columns) {
  const auto eta = eta_seconds(status);
  auto line = fmt::format("[{}/{}] elapsed {}  ETA {}", status.done, status.total, format_clock(status.elapsed_s),
                          eta ? format_clock(*eta) : "--");
  for (const auto& lane : status.busy)
    line += lane.phase.empty() ? fmt::format(" | {}", lane.task) : fmt::format(" | {} {}", lane.task, lane.phase);
  // The last column stays free: writing into it leaves some terminals about to wrap.
  return fit_width(std::move(line), columns > 0 ? columns - 1 : 0);
}

}  // namespace pallasbench
