#include "pallasbench/record/arrow_stable.hpp"

#include <array>
#include <string_view>

namespace pallasbench {
namespace {

using nlohmann::json;

// Objects keyed by data, as JSON pointers; "*" stands for every element of an array.
constexpr std::array k_keyed_maps = {
    "/artifacts/unavailable",
    "/artifacts/summary/missing",
    "/artifacts/summary/kernels/*/global_loads",
    "/artifacts/summary/kernels/*/global_stores",
    "/artifacts/summary/kernels/*/shared_loads",
    "/artifacts/summary/kernels/*/shared_stores",
    "/artifacts/summary/kernels/*/async_copies",
    "/artifacts/summary/kernels/*/special_functions",
    "/artifacts/summary/kernels/*/tensor_core_instructions",
    "/artifacts/summary/kernels/*/missing",
    "/artifacts/summary/kernels/*/ptx/global_loads",
    "/artifacts/summary/kernels/*/ptx/global_stores",
    "/artifacts/summary/kernels/*/ptx/async_copies",
    "/artifacts/summary/kernels/*/ptx/special_functions",
    "/artifacts/summary/kernels/*/ptx/tensor_core_instructions",
    "/correctness/stress_skipped",
    "/trust/module_analysis/moved_ops",
};

void drop_nulls(json& j) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end();) {
      if (it->is_null()) {
        it = j.erase(it);
      } else {
        drop_nulls(*it);
        ++it;
      }
    }
  } else if (j.is_array()) {
    for (auto& element : j) drop_nulls(element);
  }
}

json entries(const json& map) {
  json out = json::array();
  for (const auto& [key, value] : map.items()) out.push_back({{"key", key}, {"value", value}});
  return out;
}

// Applies `entries` at the path below `j`, descending through arrays at "*".
void convert_at(json& j, std::string_view path) {
  if (path.empty()) {
    if (j.is_object()) j = entries(j);
    return;
  }
  path.remove_prefix(1);  // the '/'
  const auto slash = path.find('/');
  const auto step = path.substr(0, slash);
  const auto rest = slash == std::string_view::npos ? std::string_view{} : path.substr(slash);
  if (step == "*") {
    if (j.is_array())
      for (auto& element : j) convert_at(element, rest);
  } else if (j.is_object()) {
    if (const auto it = j.find(std::string(step)); it != j.end()) convert_at(*it, rest);
  }
}

}  // namespace

json arrow_stable(json record) {
  for (const auto* path : k_keyed_maps) convert_at(record, path);
  drop_nulls(record);
  return record;
}

}  // namespace pallasbench
