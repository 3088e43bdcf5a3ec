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

// The candidate's outputs differ from the reference's beyond the tolerance on a seed or a stress
// case (the correctness report, already in the result, says where).
class failed_check : public error {
public:
  using error::error;
};

// Correct, but its timing cannot stand: a sample launched none of its kernels, or beat the
// hardware's floor.
class refused_timing : public error {
public:
  using error::error;
};

}  // namespace pallasbench::detail
