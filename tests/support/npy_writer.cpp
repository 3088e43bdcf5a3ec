#include "npy_writer.hpp"

#include <cstdlib>
#include <fstream>
#include <stdexcept>

namespace pallasbench::testing {

std::string npy_bytes(const std::string& descr, const std::vector<std::int64_t>& shape, const std::string& data,
                      bool fortran_order) {
  std::string tuple = "(";
  for (const auto d : shape) tuple += std::to_string(d) + ", ";
  if (shape.size() > 1) tuple.resize(tuple.size() - 2);
  if (shape.size() == 1) tuple.resize(tuple.size() - 1);
  tuple += ")";
  std::string header = "{'descr': '" + descr + "', 'fortran_order': " + (fortran_order ? "True" : "False") +
                       ", 'shape': " + tuple + ", }";
  const std::size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  std::string out = "\x93NUMPY";
  out.push_back('\x01');
  out.push_back('\x00');
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>(header.size() >> 8));
  return out + header + data;
}

void write_file(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

temp_dir::temp_dir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "pallasbench-test-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  m_path = pattern;
}

temp_dir::~temp_dir() {
  std::error_code ec;
  std::filesystem::remove_all(m_path, ec);
}

std::filesystem::path write_f32(const temp_dir& dir, const std::string& name, const std::vector<std::int64_t>& shape,
                                const std::vector<float>& values) {
  const auto path = dir / name;
  write_file(path, npy_bytes("<f4", shape, raw(values)));
  return path;
}

}  // namespace pallasbench::testing
