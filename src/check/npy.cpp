// The .npy format is small and fixed (a magic string, a version, a Python-literal header dict,
// raw data); no Debian-packaged C++ library reads it through mmap, so this reader is hand-written.
#include "pallasbench/check/npy.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <bit>
#include <cerrno>
#include <cstring>
#include <optional>
#include <regex>
#include <utility>

#include <fmt/format.h>

namespace pallasbench {
namespace {

struct dtype_entry {
  std::string_view descr;  // without the byte-order character
  dtype type;
  std::string_view name;
  std::size_t size;
};

constexpr std::array k_dtypes{
    dtype_entry{"f2", dtype::float16, "float16", 2}, dtype_entry{"f4", dtype::float32, "float32", 4},
    dtype_entry{"f8", dtype::float64, "float64", 8}, dtype_entry{"i1", dtype::int8, "int8", 1},
    dtype_entry{"i2", dtype::int16, "int16", 2},     dtype_entry{"i4", dtype::int32, "int32", 4},
    dtype_entry{"i8", dtype::int64, "int64", 8},     dtype_entry{"u1", dtype::uint8, "uint8", 1},
    dtype_entry{"u2", dtype::uint16, "uint16", 2},   dtype_entry{"u4", dtype::uint32, "uint32", 4},
    dtype_entry{"u8", dtype::uint64, "uint64", 8},   dtype_entry{"b1", dtype::boolean, "bool", 1},
};

const dtype_entry& entry(dtype type) {
  for (const auto& e : k_dtypes)
    if (e.type == type) return e;
  throw npy_error("unknown dtype");
}

[[noreturn]] void fail(const std::filesystem::path& path, std::string_view what) {
  throw npy_error(fmt::format("{}: malformed .npy: {}", path.string(), what));
}

std::string header_value(const std::string& header, std::string_view key, const std::filesystem::path& path) {
  // Values are Python literals: a quoted string, True/False, or a parenthesised tuple.
  const std::regex pattern(fmt::format(R"('{}'\s*:\s*('[^']*'|True|False|\([^)]*\)))", key));
  std::smatch match;
  if (!std::regex_search(header, match, pattern)) fail(path, fmt::format("header lacks '{}'", key));
  return match[1].str();
}

dtype parse_descr(std::string descr, const std::filesystem::path& path) {
  descr = descr.substr(1, descr.size() - 2);  // strip quotes
  if (descr.size() != 3) fail(path, fmt::format("unsupported dtype descr '{}'", descr));
  const char order = descr[0];
  const auto code = std::string_view(descr).substr(1);
  for (const auto& e : k_dtypes) {
    if (e.descr != code) continue;
    const bool single_byte = e.size == 1;
    if (order == '>' && !single_byte) fail(path, fmt::format("big-endian dtype '{}' is not supported", descr));
    if (order != '<' && order != '|' && !(order == '>' && single_byte))
      fail(path, fmt::format("bad byte order in dtype '{}'", descr));
    return e.type;
  }
  fail(path, fmt::format("unsupported dtype '{}'", descr));
}

std::vector<std::int64_t> parse_shape(const std::string& tuple, const std::filesystem::path& path) {
  std::vector<std::int64_t> shape;
  const std::regex number(R"(\s*(\d+)\s*(,|$))");
  const std::string inner = tuple.substr(1, tuple.size() - 2);
  auto it = std::sregex_iterator(inner.begin(), inner.end(), number);
  std::size_t consumed = 0;
  for (; it != std::sregex_iterator(); ++it) {
    if (static_cast<std::size_t>(it->position()) != consumed) fail(path, "bad shape " + tuple);
    shape.push_back(std::stoll((*it)[1].str()));
    consumed += it->length();
  }
  if (inner.find_first_not_of(" ") != std::string::npos && consumed != inner.size()) fail(path, "bad shape " + tuple);
  return shape;
}

}  // namespace

std::string_view dtype_name(dtype type) { return entry(type).name; }
std::size_t dtype_size(dtype type) { return entry(type).size; }
bool is_floating(dtype type) { return type == dtype::float16 || type == dtype::float32 || type == dtype::float64; }

half::operator float() const {
  const std::uint32_t sign = (bits & 0x8000u) << 16;
  const std::uint32_t exponent = (bits >> 10) & 0x1fu;
  const std::uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24
    const float value = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
    return sign ? -value : value;
  }
  const std::uint32_t out =
      exponent == 0x1f ? sign | 0x7f800000u | (mantissa << 13) : sign | ((exponent + 112) << 23) | (mantissa << 13);
  return std::bit_cast<float>(out);
}

mapped_file::mapped_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw npy_error(fmt::format("{}: cannot open: {}", path.string(), std::strerror(errno)));
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    ::close(fd);
    throw npy_error(fmt::format("{}: cannot stat: {}", path.string(), std::strerror(errno)));
  }
  m_size = static_cast<std::size_t>(info.st_size);
  if (m_size > 0) {
    // MAP_POPULATE: fault the pages in one go; every checked array is read whole.
    void* data = ::mmap(nullptr, m_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (data == MAP_FAILED) {
      ::close(fd);
      throw npy_error(fmt::format("{}: cannot map: {}", path.string(), std::strerror(errno)));
    }
    m_data = static_cast<const std::byte*>(data);
  }
  ::close(fd);
}

mapped_file::mapped_file(mapped_file&& other) noexcept
    : m_data(std::exchange(other.m_data, nullptr)), m_size(std::exchange(other.m_size, 0)) {}

mapped_file& mapped_file::operator=(mapped_file&& other) noexcept {
  if (this != &other) {
    this->~mapped_file();
    m_data = std::exchange(other.m_data, nullptr);
    m_size = std::exchange(other.m_size, 0);
  }
  return *this;
}

mapped_file::~mapped_file() {
  if (m_data) ::munmap(const_cast<std::byte*>(m_data), m_size);
}

npy_array npy_array::open(const std::filesystem::path& path) {
  npy_array array;
  array.m_path = path;
  array.m_file = mapped_file(path);
  const auto bytes = array.m_file.bytes();
  constexpr std::string_view magic = "\x93NUMPY";
  if (bytes.size() < 10 || std::memcmp(bytes.data(), magic.data(), magic.size()) != 0)
    fail(path, "missing \\x93NUMPY magic");
  const auto major = static_cast<unsigned>(bytes[6]);
  std::size_t header_len = 0, prefix = 0;
  if (major == 1) {
    header_len = static_cast<std::size_t>(bytes[8]) | (static_cast<std::size_t>(bytes[9]) << 8);
    prefix = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) fail(path, "truncated header");
    for (int i = 3; i >= 0; --i) header_len = (header_len << 8) | static_cast<std::size_t>(bytes[8 + i]);
    prefix = 12;
  } else {
    fail(path, fmt::format("unsupported format version {}", major));
  }
  if (prefix + header_len > bytes.size()) fail(path, "header runs past the end of the file");
  const std::string header(reinterpret_cast<const char*>(bytes.data() + prefix), header_len);
  if (header_value(header, "fortran_order", path) != "False")
    fail(path, "Fortran-order arrays are not supported (write C order)");
  array.m_type = parse_descr(header_value(header, "descr", path), path);
  array.m_shape = parse_shape(header_value(header, "shape", path), path);
  std::size_t elements = 1;
  for (const auto dim : array.m_shape) elements *= static_cast<std::size_t>(dim);
  array.m_elements = elements;
  const std::size_t data_bytes = elements * dtype_size(array.m_type);
  const std::size_t offset = prefix + header_len;
  if (offset % dtype_size(array.m_type) != 0) fail(path, "data is not aligned to its element size");
  if (bytes.size() - offset != data_bytes)
    fail(path, fmt::format("data holds {} bytes, shape and dtype need {}", bytes.size() - offset, data_bytes));
  array.m_data = bytes.subspan(offset, data_bytes);
  return array;
}

}  // namespace pallasbench
