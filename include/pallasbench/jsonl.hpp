// The records file: JSON lines appended one whole record at a time.
#pragma once

#include <filesystem>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

namespace pallasbench {

class record_writer {
public:
  // Opens (creating) `path` for appending. A last line cut short by a crash is removed first, so
  // the next record starts on a line of its own; every complete record is kept.
  explicit record_writer(const std::filesystem::path& path);
  record_writer(const record_writer&) = delete;
  record_writer& operator=(const record_writer&) = delete;
  ~record_writer();

  // Appends the record as one line with a single write(2) and syncs it to disk.
  void append(const nlohmann::json& record);
  [[nodiscard]] const std::filesystem::path& path() const { return m_path; }

private:
  std::filesystem::path m_path;
  int m_fd = -1;
};

// config_hash of every complete record in `path` (empty if the file does not exist).
[[nodiscard]] std::set<std::string> recorded_config_hashes(const std::filesystem::path& path);

}  // namespace pallasbench
