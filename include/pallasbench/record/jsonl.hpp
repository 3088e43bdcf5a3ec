// The records file: JSON lines appended one whole record at a time, by one writer at a time.
#pragma once

#include "pallasbench/core/error.hpp"

#include <sys/types.h>

#include <filesystem>
#include <map>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pallasbench {

// Another process holds the records file's lock (and --wait-lock was not given).
class records_locked : public std::runtime_error {
public:
  records_locked(const std::filesystem::path& path, std::optional<pid_t> holder);
  [[nodiscard]] std::optional<pid_t> holder() const { return m_holder; }

private:
  std::optional<pid_t> m_holder;
};

// A record could not be appended (disk full, file size limit, I/O error). The file still ends
// with the last complete record.
class record_write_error : public error {
public:
  using error::error;
};

enum class lock_wait { fail, wait };

class record_writer {
public:
  // Opens (creating) `path` for appending (O_APPEND) and takes an exclusive flock on it, held
  // until destruction: a second writer gets records_locked naming the holder's pid, or with
  // lock_wait::wait queues until the lock is free (Ctrl-C ends the wait). A last line cut short
  // by a crash is then removed, so the next record starts on a line of its own.
  explicit record_writer(const std::filesystem::path& path, lock_wait wait = lock_wait::fail);
  record_writer(const record_writer&) = delete;
  record_writer& operator=(const record_writer&) = delete;
  ~record_writer();

  // Appends the record as one line with a single write(2) and syncs it to disk. On failure the
  // partial line is cut off again and record_write_error says why.
  void append(const nlohmann::json& record);
  [[nodiscard]] const std::filesystem::path& path() const { return m_path; }

private:
  std::filesystem::path m_path;
  int m_fd = -1;
  bool m_created = false;  // this writer created the file
  std::size_t m_appended = 0;
};

// The pid holding an flock on `path`, from /proc/locks (none when no lock is listed there).
[[nodiscard]] std::optional<pid_t> flock_holder(const std::filesystem::path& path);

// The records of a records file, in order; a gzipped file (records.jsonl.gz, any name) is read
// through zlib, a missing one has none. A last line without its newline was cut short by a
// crash: it is skipped, with a warning on `warnings` when given. A complete line that is not a
// JSON object throws, naming file:line.
[[nodiscard]] std::vector<nlohmann::json> read_records(const std::filesystem::path& path,
                                                       std::ostream* warnings = nullptr);

// A run folder's records file: records.jsonl, or records.jsonl.gz when only that is there (a run
// folder gzipped for the repository); records.jsonl (perhaps missing) otherwise.
[[nodiscard]] std::filesystem::path records_file_of(const std::filesystem::path& folder);

// Every complete record of `path` by config_hash, the last one winning (empty if the file does not
// exist): what --resume skips, and counts.
[[nodiscard]] std::map<std::string, nlohmann::json> recorded_by_config_hash(const std::filesystem::path& path);

}  // namespace pallasbench
