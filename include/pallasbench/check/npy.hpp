// Reading NumPy .npy files through mmap: the worker writes tensors, the harness checks them.
#pragma once

#include "pallasbench/core/error.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace pallasbench {

enum class dtype { float16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, boolean };

[[nodiscard]] std::string_view dtype_name(dtype type);  // numpy's name: "float32", "bool", ...
[[nodiscard]] std::size_t dtype_size(dtype type);
[[nodiscard]] bool is_floating(dtype type);

// A malformed or unsupported .npy file; the message names the file and the problem.
class npy_error : public error {
public:
  using error::error;
};

// A read-only memory mapping of a whole file, unmapped on destruction.
class mapped_file {
public:
  mapped_file() = default;
  explicit mapped_file(const std::filesystem::path& path);
  mapped_file(mapped_file&& other) noexcept;
  mapped_file& operator=(mapped_file&& other) noexcept;
  mapped_file(const mapped_file&) = delete;
  mapped_file& operator=(const mapped_file&) = delete;
  ~mapped_file();

  [[nodiscard]] std::span<const std::byte> bytes() const { return {m_data, m_size}; }

private:
  const std::byte* m_data = nullptr;
  std::size_t m_size = 0;
};

// A C-order, little-endian array from a .npy file (format versions 1.0 to 3.0). Fortran order,
// big-endian data, object arrays and truncated files are refused with npy_error.
class npy_array {
public:
  // Maps the file. The mapping stays valid after the file is unlinked.
  [[nodiscard]] static npy_array open(const std::filesystem::path& path);

  [[nodiscard]] dtype type() const { return m_type; }
  [[nodiscard]] const std::vector<std::int64_t>& shape() const { return m_shape; }
  [[nodiscard]] std::size_t size() const { return m_elements; }
  [[nodiscard]] std::span<const std::byte> data() const { return m_data; }
  [[nodiscard]] const std::filesystem::path& path() const { return m_path; }

  template <class T>
  [[nodiscard]] std::span<const T> as() const {
    return {reinterpret_cast<const T*>(m_data.data()), m_elements};
  }

private:
  std::filesystem::path m_path;
  mapped_file m_file;
  dtype m_type = dtype::float32;
  std::vector<std::int64_t> m_shape;
  std::size_t m_elements = 0;
  std::span<const std::byte> m_data;
};

// IEEE half precision as stored in .npy; converts to float for arithmetic.
struct half {
  std::uint16_t bits;
  [[nodiscard]] operator float() const;  // NOLINT(google-explicit-constructor)
};

// Calls fn(std::span<const T>) with the array's elements typed by its dtype (bool as uint8_t).
template <class Fn>
decltype(auto) visit_elements(const npy_array& array, Fn&& fn) {
  switch (array.type()) {
    case dtype::float16:
      return fn(array.as<half>());
    case dtype::float32:
      return fn(array.as<float>());
    case dtype::float64:
      return fn(array.as<double>());
    case dtype::int8:
      return fn(array.as<std::int8_t>());
    case dtype::int16:
      return fn(array.as<std::int16_t>());
    case dtype::int32:
      return fn(array.as<std::int32_t>());
    case dtype::int64:
      return fn(array.as<std::int64_t>());
    case dtype::uint8:
      return fn(array.as<std::uint8_t>());
    case dtype::uint16:
      return fn(array.as<std::uint16_t>());
    case dtype::uint32:
      return fn(array.as<std::uint32_t>());
    case dtype::uint64:
      return fn(array.as<std::uint64_t>());
    case dtype::boolean:
      return fn(array.as<std::uint8_t>());
  }
  throw npy_error("unknown dtype");
}

}  // namespace pallasbench
