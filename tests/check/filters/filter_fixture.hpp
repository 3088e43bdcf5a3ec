// What the filter tests share: a fixture that writes float32 arrays and keeps them open, the
// run of a check under both instruction sets of the value passes, and the moments as defined.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "npy_writer.hpp"
#include "pallasbench/check/filters/profiles.hpp"
#include "pallasbench/check/npy.hpp"

// Not in an unnamed namespace: the test files share one Filters fixture type (GoogleTest requires
// one fixture class per test suite).
namespace pallasbench::testing {

class Filters : public ::testing::Test {
protected:
  // Keeps every array it makes alive for the test.
  const npy_array* array(std::vector<std::int64_t> shape, const std::vector<float>& values) {
    const auto path = write_f32(m_dir, "a" + std::to_string(m_arrays.size()) + ".npy", shape, values);
    m_arrays.push_back(std::make_unique<npy_array>(npy_array::open(path)));
    return m_arrays.back().get();
  }
  const npy_array* vec(const std::vector<float>& values) { return array({(std::int64_t)values.size()}, values); }

  temp_dir m_dir;
  std::vector<std::unique_ptr<npy_array>> m_arrays;
};

// The value passes exist per instruction set (src/check/detail/vector_isa.hpp): each check runs
// with the AVX2 passes (on a CPU that has them) and with the SSE2 baseline.
template <class Fn>
void for_each_isa(Fn&& check) {
  ::unsetenv("PALLASBENCH_NO_AVX2");
  {
    SCOPED_TRACE("native passes");
    check();
  }
  ::setenv("PALLASBENCH_NO_AVX2", "1", 1);
  {
    SCOPED_TRACE("baseline passes");
    check();
  }
  ::unsetenv("PALLASBENCH_NO_AVX2");
}

// The moments as defined: finite elements only, two passes in double.
inline value_moments reference_moments(const std::vector<float>& values) {
  value_moments m;
  double sum = 0;
  for (const float v : values) {
    if (!std::isfinite(v)) {
      ++m.nonfinite;
      continue;
    }
    if (m.count == 0) m.min = m.max = v;
    m.min = std::min<double>(m.min, v), m.max = std::max<double>(m.max, v);
    sum += v, ++m.count;
  }
  if (m.count == 0) return m;
  m.mean = sum / static_cast<double>(m.count);
  for (const float v : values)
    if (std::isfinite(v)) m.m2 += (v - m.mean) * (v - m.mean);
  return m;
}

}  // namespace pallasbench::testing
