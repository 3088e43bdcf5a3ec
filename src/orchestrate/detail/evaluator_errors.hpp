// What the evaluator's translation units share: the failures it turns into a status.
#pragma once

#include "pallasbench/core/error.hpp"

#include <stdexcept>
#include <string>

namespace pallasbench::detail {

// The candidate's file is refused before anything of it runs (over --max-source-bytes, or bytes
// that do not decode in its declared encoding).
class refused_candidate : public error {
public:
  using error::error;
};

// The module is refused before it is compiled (analysis of its StableHLO).
class refused_module : public error {
public:
  using error::error;
};

// The candidate's output cannot match the reference whatever its values, or it differs under
// timing.
class wrong_output : public error {
public:
  using error::error;
};

}  // namespace pallasbench::detail
