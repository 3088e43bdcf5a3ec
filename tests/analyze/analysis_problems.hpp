// What the module-analysis tests share: whether an analysis lists a problem.
#pragma once

#include <algorithm>
#include <string>

#include "pallasbench/analyze/module_analysis.hpp"

namespace pallasbench::testing {

// Some problem of `a` contains `needle`.
inline bool has_problem(const module_analysis& a, const std::string& needle) {
  return std::any_of(a.problems.begin(), a.problems.end(),
                     [&](const std::string& p) { return p.find(needle) != std::string::npos; });
}

}  // namespace pallasbench::testing
