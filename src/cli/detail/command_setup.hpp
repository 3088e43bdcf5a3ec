// The commands' checks before any worker starts: flag limits, the records file, resume.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "pallasbench/cli/commands.hpp"
#include "pallasbench/orchestrate/worker.hpp"
#include "pallasbench/record/jsonl.hpp"

namespace pallasbench::detail {

// Limits a user can act on; usage_error naming the flag otherwise.
void validate(const evaluation_flags& flags);

// Each process's memory bound for a run of at most `lanes` lanes over `devices` devices, from the
// budget --host-memory gives (read now, before any worker starts) and the flags that override
// it; enforced by a delegated cgroup v2 tree where the machine has one, else by rlimits.
// usage_error naming the flag for a share that cannot work.
[[nodiscard]] std::shared_ptr<const memory_containment> make_containment(const evaluation_flags& flags,
                                                                         std::size_t lanes, std::size_t devices);

// --compile-cache as an absolute path (the workers run in the project root), empty without it.
[[nodiscard]] std::filesystem::path compile_cache_dir(const evaluation_flags& flags);

// The records file of --out (or a fresh timestamped folder): the folder created and writable, an
// earlier file continued only with --resume, the file's lock taken (usage_error when another
// process holds it and --wait-lock was not given).
[[nodiscard]] std::unique_ptr<record_writer> open_records(const evaluation_flags& flags);

// A records-file argument of report/compare: a run folder stands for its records.jsonl, as
// `run --out` wrote it (or its records.jsonl.gz: record/jsonl.hpp, records_file_of); a file may be
// gzipped; usage_error when there is no such file.
[[nodiscard]] std::filesystem::path records_file(const std::string& argument);

// The one reader of records files for the commands that read runs (report; compare should call it
// too): every record of each argument (a run folder or a records file), in file order, none
// dropped or replaced by a later one. A cut last line is skipped with a warning on stderr; a
// corrupt line or a record of no known status is a usage_error naming file:line.
[[nodiscard]] std::vector<nlohmann::json> load_records(const std::vector<std::string>& arguments);

// --resume: the records already in the file, read under its lock.
[[nodiscard]] std::map<std::string, nlohmann::json> resumed(const evaluation_flags& flags, const record_writer* writer);

}  // namespace pallasbench::detail
