#include "pallasbench/orchestrate/run_plan.hpp"

#include <string_view>

#include <fmt/format.h>

#include "pallasbench/core/fnv1a.hpp"
#include "pallasbench/record/record.hpp"

namespace pallasbench {

timeouts timeouts::from_seconds(double seconds) {
  const auto wait = std::chrono::milliseconds(static_cast<long>(seconds * 1000));
  return {std::max<std::chrono::milliseconds>(wait, k_min_startup), wait};
}

nlohmann::json run_config::to_json() const {
  nlohmann::json j = {{"size", to_string(size)}, {"device", to_string(device)}, {"seeds", seeds}, {"timeout_s", timeout_s}};
  if (dtype != float_dtype::float32) j["dtype"] = to_string(dtype);
  if (backend) j["backend"] = to_string(*backend);
  return j;
}

std::string run_config::label() const {
  std::string text = size_name();
  if (dtype != float_dtype::float32) text += "/" + std::string(to_string(dtype));
  if (backend == kernel_backend::mosaic_gpu) text += "/" + std::string(to_string(*backend));
  return text;
}

std::string config_hash(const std::string& task, const std::string& candidate_sha256, const run_config& config) {
  const nlohmann::json key = {{"task", task},
                              {"candidate_sha256", candidate_sha256},
                              {"config", config.to_json()},
                              {"schema_version", k_schema_version}};
  return fmt::format("{:016x}", fnv1a(key.dump()));
}

}  // namespace pallasbench
