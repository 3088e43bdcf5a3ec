// What the compiler pipeline made of a kernel, as data and as pictures.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace pallasbench {

// Graphviz DOT of a jaxpr DAG (python/pallasbench/jaxpr_info.py:dag): one node per equation,
// edges for value flow, each pallas_call body a cluster labelled with its grid and blocks.
[[nodiscard]] std::string jaxpr_dot(const nlohmann::json& dag, const std::string& title);

}  // namespace pallasbench
