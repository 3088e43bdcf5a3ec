#include "pallasbench/record/jsonl.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <zlib.h>

#include "pallasbench/core/interrupt.hpp"

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

std::string holder_text(const std::optional<pid_t>& holder) {
  return holder ? fmt::format("process {}", *holder) : std::string("another process");
}

// Takes the exclusive lock, queueing when asked; EINTR from Ctrl-C ends the wait.
void lock_exclusive(int fd, const std::filesystem::path& path, lock_wait wait) {
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return;
  if (errno != EWOULDBLOCK) io_fail(path, "cannot lock records file");
  if (wait == lock_wait::fail) throw records_locked(path, flock_holder(path));
  fmt::print(std::cerr, "{} is being written by {}: waiting for it (--wait-lock)\n", path.string(),
             holder_text(flock_holder(path)));
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno != EINTR) io_fail(path, "cannot lock records file");
    if (interrupted()) throw interrupted_error();
  }
}

// A records file's bytes, gunzipped when it is gzip (zlib reads a plain file as it is): the committed
// GPU results are records.jsonl.gz. Empty when the file does not exist.
std::string records_bytes(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return {};
  gzFile file = ::gzopen(path.c_str(), "rb");
  if (!file) io_fail(path, "cannot open records file");
  std::string bytes;
  char chunk[1 << 16];
  int n = 0;
  while ((n = ::gzread(file, chunk, sizeof chunk)) > 0) bytes.append(chunk, static_cast<std::size_t>(n));
  // A stream cut short ends the reads without an error return: zlib keeps it as Z_BUF_ERROR.
  int code = Z_OK;
  const std::string why = ::gzerror(file, &code);
  ::gzclose(file);
  if (n < 0 || code != Z_OK)
    throw std::runtime_error(fmt::format("{}: not a readable gzip file: {}", path.string(), why));
  return bytes;
}

}  // namespace

records_locked::records_locked(const std::filesystem::path& path, std::optional<pid_t> holder)
    : std::runtime_error(fmt::format("{} is being written by {} (it holds the file's lock): wait for it, pass "
                                     "--wait-lock to queue behind it, or choose another --out",
                                     path.string(), holder_text(holder))),
      m_holder(holder) {}

std::optional<pid_t> flock_holder(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  // Lines read "1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF": pid, then major:minor:inode
  // with the device numbers in hex.
  const auto wanted = fmt::format("{:02x}:{:02x}:{}", major(st.st_dev), minor(st.st_dev), st.st_ino);
  std::ifstream locks("/proc/locks");
  std::string line;
  while (std::getline(locks, line)) {
    std::istringstream fields(line);
    std::string id, kind, mode, access, device;
    pid_t pid = 0;
    if (!(fields >> id >> kind >> mode >> access >> pid >> device)) continue;
    if (kind == "FLOCK" && device == wanted) return pid;
  }
  return std::nullopt;
}

record_writer::record_writer(const std::filesystem::path& path, lock_wait wait) : m_path(path) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  // The holder before us may have removed the file it created and left empty: then the lock we
  // got is on a name no longer in the folder, and we open again.
  for (;;) {
    const bool existed = std::filesystem::exists(path);
    m_fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (m_fd < 0) io_fail(path, "cannot open records file");
    try {
      lock_exclusive(m_fd, path, wait);
    } catch (...) {
      ::close(m_fd);
      throw;
    }
    struct stat held {
    }, named{};
    if (::fstat(m_fd, &held) == 0 && ::stat(path.c_str(), &named) == 0 && held.st_ino == named.st_ino &&
        held.st_dev == named.st_dev) {
      m_created = !existed;
      break;
    }
    ::close(m_fd);
  }
  const off_t end = complete_length(m_fd, path);
  if (::ftruncate(m_fd, end) != 0) {
    ::close(m_fd);
    io_fail(path, "truncate a partial last line");
  }
}

record_writer::~record_writer() {
  if (m_fd < 0) return;
  // A run that stopped before its first record (bad flags, no GPU) leaves no empty file behind
  // to block the next run; unlinked under the lock, so a queued writer notices and reopens.
  struct stat st {};
  if (m_created && m_appended == 0 && ::fstat(m_fd, &st) == 0 && st.st_size == 0) ::unlink(m_path.c_str());
  ::close(m_fd);  // releases the lock
}

void record_writer::append(const nlohmann::json& record) {
  // Invalid UTF-8 that slipped past valid_utf8 is replaced rather than refused: losing a record to
  // it would be worse.
  const std::string line = record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  const off_t start = ::lseek(m_fd, 0, SEEK_END);
  std::size_t written = 0;
  const auto fail = [&](std::string_view what) {
    const int error = errno;
    const bool cut = start >= 0 && ::ftruncate(m_fd, start) == 0;  // never leave half a line behind
    throw record_write_error(
        fmt::format("{}: {} ({} bytes): {}{}", m_path.string(), what, line.size(), std::strerror(error),
                    cut ? "; the file ends with the last complete record" : "; the partial line could not be removed"));
  };
  while (written < line.size()) {
    const ssize_t n = ::write(m_fd, line.data() + written, line.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("cannot append the record");
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(m_fd) != 0) fail("cannot sync the record to disk");
  ++m_appended;
}

std::vector<nlohmann::json> read_records(const std::filesystem::path& path, std::ostream* warnings) {
  std::vector<nlohmann::json> records;
  const auto bytes = records_bytes(path);
  std::size_t number = 0;
  for (std::size_t start = 0; start < bytes.size();) {
    ++number;
    const auto end = bytes.find('\n', start);
    if (end == std::string::npos) {  // a last line without its newline was cut short: not a record
      if (warnings)
        fmt::print(*warnings, "warning: {}:{}: the last line was cut short ({} bytes, no newline): skipped\n",
                   path.string(), number, bytes.size() - start);
      break;
    }
    auto record = nlohmann::json::parse(bytes.begin() + static_cast<std::ptrdiff_t>(start),
                                        bytes.begin() + static_cast<std::ptrdiff_t>(end), nullptr, false);
    if (!record.is_object()) throw std::runtime_error(fmt::format("{}:{}: not a JSON record", path.string(), number));
    records.push_back(std::move(record));
    start = end + 1;
  }
  return records;
}

std::filesystem::path records_file_of(const std::filesystem::path& folder) {
  const auto plain = folder / "records.jsonl";
  std::error_code ec;
  if (!std::filesystem::exists(plain, ec) && std::filesystem::is_regular_file(folder / "records.jsonl.gz", ec))
    return folder / "records.jsonl.gz";
  return plain;
}

std::map<std::string, nlohmann::json> recorded_by_config_hash(const std::filesystem::path& path) {
  std::map<std::string, nlohmann::json> recorded;
  for (auto& record : read_records(path))
    if (record.contains("config_hash") && record["config_hash"].is_string()) {
      auto hash = record["config_hash"].get<std::string>();  // before the record moves
      recorded[std::move(hash)] = std::move(record);
    }
  return recorded;
}

}  // namespace pallasbench
