// The std across seeds: per element, the standard deviation over the k arrays (seeds), averaged
// over elements.
#pragma once

#include <cstddef>
#include <vector>

#include "pallasbench/check/filters/profiles.hpp"
#include "pallasbench/check/npy.hpp"

namespace pallasbench::detail {

// Mean over elements of the std across k float arrays of size elements; with moments (k
// entries), arrays 1 to k-1 add theirs while their blocks are in cache.
[[nodiscard]] double float_std_across(const float* const* arrays, std::size_t k, std::size_t size,
                                      value_moments* moments = nullptr);

// Mean over elements of the standard deviation across arrays (seeds) of the same shape, any dtype.
[[nodiscard]] double array_std_across(const std::vector<const npy_array*>& arrays);

}  // namespace pallasbench::detail
