// The suite's problem sizes (docs/tasks.md: every task has shapes at each).
#pragma once

#include <array>
#include <string_view>
#include <utility>

#include "pallasbench/core/enum_names.hpp"

namespace pallasbench {

enum class problem_size { small, medium, large };

template <>
struct enum_names<problem_size> {
  static constexpr std::string_view what = "size";
  static constexpr std::array entries{
      std::pair{problem_size::small, std::string_view("small")},
      std::pair{problem_size::medium, std::string_view("medium")},
      std::pair{problem_size::large, std::string_view("large")},
  };
};

}  // namespace pallasbench
