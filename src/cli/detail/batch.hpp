// eval --batch FILE: one request a line, {"id", "task", "size"?, "source" | "path"}.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pallasbench/suite/dtype.hpp"
#include "pallasbench/suite/size.hpp"

namespace pallasbench::detail {

struct batch_request {
  std::string id;
  std::string task;
  std::optional<problem_size> size;  // none: --size
  std::optional<float_dtype> dtype;  // none: --dtype
  std::string path;                  // absolute: the file given, or the inline source written out
  bool inline_source = false;        // given as "source": its record names it "request:<id>"
  std::size_t line = 0;              // in the batch file, for messages
};

// A private folder (0700) holding the inline sources of a batch as files, so that the reference
// process reads, hashes and bundles them as it does any candidate file; removed with the object.
class batch_sources {
public:
  batch_sources();
  ~batch_sources();
  batch_sources(const batch_sources&) = delete;
  batch_sources& operator=(const batch_sources&) = delete;
  [[nodiscard]] std::filesystem::path write(const std::string& name, const std::string& source) const;

private:
  std::filesystem::path m_dir;
};

struct batch {
  std::vector<batch_request> requests;
  std::unique_ptr<batch_sources> sources;
};

// Every request of `file`, checked before anything runs: usage_error naming file:line for a line
// that is not such an object, a duplicate id, a path that is not a file, or an unknown size.
// Relative paths are taken from the batch file's folder; "-" reads standard input.
[[nodiscard]] batch read_batch(const std::string& file);

}  // namespace pallasbench::detail
