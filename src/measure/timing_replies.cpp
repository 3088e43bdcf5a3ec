#include "pallasbench/measure/timing_replies.hpp"

#include "pallasbench/core/error.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace pallasbench {
namespace {

using nlohmann::json;

void append_series(const json& reply, const char* key, std::size_t expected, std::vector<double>& into) {
  if (!reply.contains(key)) return;
  const auto& values = reply.at(key);
  if (values.size() != expected)
    throw error(fmt::format("timing reply: {} has {} values for {} samples", key, values.size(), expected));
  for (const auto& v : values) into.push_back(v.is_number() ? v.get<double>() : NAN);
}

void add_kernels(const json& reply, json& kernels) {
  if (!reply.contains("kernels")) return;
  for (const auto& [name, k] : reply.at("kernels").items()) {
    json& into = kernels[name];
    if (!into.is_object()) into = {{"count", 0}, {"total_us", 0.0}};
    into["count"] = into["count"].get<std::int64_t>() + k.value("count", std::int64_t{0});
    into["total_us"] = into["total_us"].get<double>() + k.value("total_us", 0.0);
  }
}

}  // namespace

void add_timing_reply(const json& reply, side_sampling& side, timing_result& timing) {
  const auto& samples = reply.at("samples_us");
  const json costs = reply.value("cost_us", json(nullptr));
  if (costs.is_array() && costs.size() != samples.size())
    throw error(fmt::format("timing reply: cost_us has {} values for {} samples", costs.size(), samples.size()));
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const double sample = samples[i].get<double>();
    const double cost = costs.is_array() ? costs[i].get<double>() : sample;
    side.rule.add(sample, cost);
    side.cost_us += cost;
  }
  append_series(reply, "wall_us", samples.size(), side.kept.wall_us);
  append_series(reply, "span_us", samples.size(), side.kept.span_us);
  append_series(reply, "sm_clock_mhz", samples.size(), side.kept.sm_clock_mhz);
  add_kernels(reply, side.kept.kernels);
  timing.timer = reply.value("timer", "wall");
  if (reply.contains("timer_error") && reply["timer_error"].is_string()) timing.timer_error = reply["timer_error"];
  if (reply.contains("l2_flush_bytes")) timing.l2_flush_bytes = reply["l2_flush_bytes"].get<std::int64_t>();
}

int batch_size(double typical_cost_us, double batch_seconds, std::size_t min_samples) {
  if (typical_cost_us <= 0) return static_cast<int>(std::clamp<std::size_t>(min_samples, 1, 1000));
  return std::clamp(static_cast<int>(batch_seconds * 1e6 / typical_cost_us), 1, 1000);
}

bool rechecked_batch(int batch) { return batch >= 1 && (batch & (batch - 1)) == 0; }

}  // namespace pallasbench
