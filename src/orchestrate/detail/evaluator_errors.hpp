// What the evaluator's translation units share: the failures it turns into a status.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pallasbench::detail {

// The module is refused before it is compiled (analysis of its StableHLO).
class refused_module : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// The candidate's output cannot match the reference whatever its values, or it differs under
// timing.
class wrong_output : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

inline std::vector<std::string> input_paths(const nlohmann::json& reference_reply) {
  std::vector<std::string> paths;
  for (const auto& in : reference_reply.at("inputs")) paths.push_back(in.at("path").get<std::string>());
  return paths;
}

}  // namespace pallasbench::detail
