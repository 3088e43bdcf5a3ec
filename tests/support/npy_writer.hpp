// Writes .npy files for tests (what numpy.save produces, version 1.0).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace pallasbench::testing {

// Raw bytes of a .npy file with the given header fields and data.
std::string npy_bytes(const std::string& descr, const std::vector<std::int64_t>& shape, const std::string& data,
                      bool fortran_order = false);

template <class T>
std::string raw(const std::vector<T>& values) {
  return {reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T)};
}

void write_file(const std::filesystem::path& path, const std::string& bytes);

// A fresh temporary folder, removed on destruction.
class temp_dir {
public:
  temp_dir();
  ~temp_dir();
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return m_path; }
  [[nodiscard]] std::filesystem::path operator/(const std::string& name) const { return m_path / name; }

private:
  std::filesystem::path m_path;
};

// Writes a .npy file of float32 values with the given shape and returns its path.
std::filesystem::path write_f32(const temp_dir& dir, const std::string& name, const std::vector<std::int64_t>& shape,
                                const std::vector<float>& values);

}  // namespace pallasbench::testing
