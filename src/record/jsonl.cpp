#include "pallasbench/jsonl.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

namespace pallasbench {
namespace {

[[noreturn]] void io_fail(const std::filesystem::path& path, std::string_view what) {
  throw std::runtime_error(fmt::format("{}: {}: {}", path.string(), what, std::strerror(errno)));
}

// Offset just past the last newline: the end of the last complete line.
off_t complete_length(int fd, const std::filesystem::path& path) {
  const off_t size = ::lseek(fd, 0, SEEK_END);
  if (size < 0) io_fail(path, "seek");
  off_t end = size;
  char c = 0;
  while (end > 0) {
    if (::pread(fd, &c, 1, end - 1) != 1) io_fail(path, "read");
    if (c == '\n') break;
    --end;
  }
  return end;
}

}  // namespace

record_writer::record_writer(const std::filesystem::path& path) : m_path(path) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  m_fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (m_fd < 0) io_fail(path, "cannot open records file");
  const off_t end = complete_length(m_fd, path);
  if (::ftruncate(m_fd, end) != 0) io_fail(path, "truncate a partial last line");
  if (::lseek(m_fd, 0, SEEK_END) < 0) io_fail(path, "seek");
}

record_writer::~record_writer() {
  if (m_fd >= 0) ::close(m_fd);
}

void record_writer::append(const nlohmann::json& record) {
  // Invalid UTF-8 from a worker's stderr is replaced rather than refused: losing a record to it
  // would be worse.
  const std::string line = record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::size_t written = 0;
  while (written < line.size()) {
    const ssize_t n = ::write(m_fd, line.data() + written, line.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      io_fail(m_path, "write");
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(m_fd) != 0) io_fail(m_path, "fsync");
}

std::set<std::string> recorded_config_hashes(const std::filesystem::path& path) {
  std::set<std::string> hashes;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (in.eof()) break;  // a last line without its newline was cut short: not a record
    const auto record = nlohmann::json::parse(line, nullptr, false);
    if (record.is_object() && record.contains("config_hash")) hashes.insert(record["config_hash"].get<std::string>());
  }
  return hashes;
}

}  // namespace pallasbench
