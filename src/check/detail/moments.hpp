// The moments passes over whole arrays, each float pass in its baseline and AVX2 copies.
#pragma once

#include <cstddef>

#include "pallasbench/check/filters/profiles.hpp"
#include "pallasbench/check/npy.hpp"

namespace pallasbench::detail {

// Merges the moments of x[0, n) into m, block by block.
void moments_f32(value_moments& m, const float* x, std::size_t n);

// Moments of any array, alone (the output and reference differ in dtype or shape).
[[nodiscard]] value_moments array_moments(const npy_array& array);

}  // namespace pallasbench::detail
