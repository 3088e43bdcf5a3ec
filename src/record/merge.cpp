#include "pallasbench/record/merge.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include "pallasbench/record/jsonl.hpp"
#include "pallasbench/suite/size.hpp"

namespace pallasbench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* k_records_file = "records.jsonl";

// One record as read: where it came from, for the messages, and its folder, for its files.
struct sourced_record {
  json record;
  std::string where;  // file:line
  fs::path dir;
};

std::string text_of(const json& record, const char* key) {
  const auto it = record.find(key);
  return it != record.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string task_of(const json& record) {
  return fmt::format("task '{}' ({})", text_of(record, "kernel_name"), text_of(record, "size"));
}

// The records file of an input, and the folder its artifact paths are relative to.
std::pair<fs::path, fs::path> locate(const fs::path& input) {
  if (fs::is_directory(input)) return {records_file_of(input), input};
  if (fs::is_regular_file(input)) return {input, input.parent_path()};
  throw merge_error(fmt::format("{}: no such folder or records file", input.string()));
}

[[noreturn]] void conflict(const sourced_record& first, const sourced_record& second, std::string_view why) {
  throw merge_error(fmt::format("conflicting records of {}: {} and {} {}; keep one of them and merge again",
                                task_of(second.record), first.where, second.where, why));
}

// Every input's records, each configuration once: identical repeats dropped, differing ones refused.
std::vector<sourced_record> collect(const std::vector<fs::path>& inputs, std::ostream& warnings, merge_result& result) {
  std::vector<sourced_record> kept;
  std::map<std::string, std::size_t> by_hash, by_uuid;
  for (const auto& input : inputs) {
    const auto [file, dir] = locate(input);
    if (!fs::exists(file)) {
      fmt::print(warnings, "warning: {}: no {} (a shard that got no work, or a job that wrote nothing): skipped\n",
                 input.string(), k_records_file);
      continue;
    }
    if (const auto holder = flock_holder(file))  // a shard still running (seen on this machine only)
      fmt::print(warnings, "warning: {} is being written by process {}: what it writes from now on is not merged\n",
                 file.string(), *holder);
    std::vector<json> records;
    try {
      records = read_records(file, &warnings);  // a cut last line is skipped with a warning
    } catch (const std::runtime_error& e) {
      throw merge_error(e.what());
    }
    for (std::size_t i = 0; i < records.size(); ++i) {
      sourced_record here{std::move(records[i]), fmt::format("{}:{}", file.string(), i + 1), dir};
      const auto hash = text_of(here.record, "config_hash");
      if (hash.empty()) throw merge_error(fmt::format("{}: a record without config_hash", here.where));
      if (const auto it = by_hash.find(hash); it != by_hash.end()) {
        if (kept[it->second].record == here.record) {
          ++result.duplicates;
          continue;
        }
        conflict(kept[it->second], here, fmt::format("differ for one configuration (config_hash {})", hash));
      }
      const auto uuid = text_of(here.record, "uuid");
      if (const auto it = by_uuid.find(uuid); !uuid.empty() && it != by_uuid.end())
        conflict(kept[it->second], here, fmt::format("differ under one uuid ({})", uuid));
      by_hash.emplace(hash, kept.size());
      if (!uuid.empty()) by_uuid.emplace(uuid, kept.size());
      kept.push_back(std::move(here));
    }
  }
  return kept;
}

// "a", "a and b", "a, b and c".
std::string listed(const std::vector<std::string>& items) {
  if (items.size() < 2) return items.empty() ? "" : items.front();
  return fmt::format("{} and {}", fmt::join(items.begin(), items.end() - 1, ", "), items.back());
}

// Shards of one count N of which some index brought no record: a job that failed looks the same
// as a shard that got no work, and only its log can tell.
void warn_missing_shards(const std::vector<sourced_record>& records, std::ostream& warnings) {
  std::map<int, std::set<int>> seen;  // count -> indices
  for (const auto& r : records) {
    const auto it = r.record.find("shard");
    if (it == r.record.end() || !it->is_object()) continue;
    const auto index = it->value("index", 0), count = it->value("count", 0);
    if (count > 0) seen[count].insert(index);
  }
  for (const auto& [count, indices] : seen) {
    std::vector<std::string> merged, missing;
    for (int index = 1; index <= count; ++index)
      (indices.contains(index) ? merged : missing).push_back(fmt::format("{}/{}", index, count));
    if (missing.empty()) continue;
    fmt::print(warnings,
               "warning: shard{} {} merged; {} missing (no record of {}: a shard that got no work, or a job that "
               "failed: see its log)\n",
               merged.size() == 1 ? "" : "s", listed(merged), listed(missing), missing.size() == 1 ? "it" : "them");
  }
}

std::string file_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw merge_error(fmt::format("{}: cannot read", path.string()));
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool same_bytes(const fs::path& a, const fs::path& b) {
  return fs::file_size(a) == fs::file_size(b) && file_bytes(a) == file_bytes(b);
}

// The files the records name (artifacts.<kind>.path, relative to the records' folder), by their
// name under OUT. Two different files of one name are refused before anything is copied.
std::map<fs::path, fs::path> artifact_copies(const std::vector<sourced_record>& records, const fs::path& out_dir,
                                             std::ostream& warnings) {
  std::map<fs::path, std::pair<fs::path, std::string>> planned;  // relative -> (source, where)
  for (const auto& r : records) {
    const auto artifacts = r.record.find("artifacts");
    if (artifacts == r.record.end() || !artifacts->is_object()) continue;
    for (const auto& [kind, entry] : artifacts->items()) {
      if (!entry.is_object() || !entry.contains("path") || !entry["path"].is_string()) continue;
      const fs::path relative = entry["path"].get<std::string>();
      const bool inside = !relative.empty() && relative.is_relative() &&
                          std::none_of(relative.begin(), relative.end(), [](const fs::path& p) { return p == ".."; });
      if (!inside)
        throw merge_error(fmt::format("{}: artifacts.{}.path '{}' is not inside the records' folder", r.where, kind,
                                      relative.string()));
      const auto source = r.dir / relative;
      if (!fs::is_regular_file(source)) {
        fmt::print(warnings, "warning: {}: artifacts.{} names {}, which is missing: not copied\n", r.where, kind,
                   source.string());
        continue;
      }
      if (const auto it = planned.find(relative); it != planned.end()) {
        if (!same_bytes(it->second.first, source))
          throw merge_error(fmt::format("artifact file {} differs between {} ({}) and {} ({})", relative.string(),
                                        it->second.first.string(), it->second.second, source.string(), r.where));
        continue;
      }
      const auto target = out_dir / relative;
      if (fs::exists(target) && !same_bytes(target, source))
        throw merge_error(fmt::format("{} exists and differs from {} ({})", target.string(), source.string(), r.where));
      planned.emplace(relative, std::pair{source, r.where});
    }
  }
  std::map<fs::path, fs::path> copies;
  for (const auto& [relative, from] : planned)
    if (!fs::exists(out_dir / relative)) copies.emplace(relative, from.first);
  return copies;
}

std::size_t size_rank(const json& record) {
  const auto size = from_string<problem_size>(text_of(record, "size"));
  return size ? static_cast<std::size_t>(*size) : enum_names<problem_size>::entries.size();
}

auto order_key(const json& r) {
  const auto candidate = r.value("candidate", json::object());
  return std::tuple{r.value("level", 0),        text_of(r, "kernel_name"),    size_rank(r),
                    text_of(candidate, "path"), text_of(candidate, "sha256"), text_of(r, "config_hash"),
                    text_of(r, "uuid")};
}

}  // namespace

bool merge_order_less(const json& a, const json& b) { return order_key(a) < order_key(b); }

merge_result merge_records(const fs::path& out_dir, const std::vector<fs::path>& inputs, std::ostream& warnings) {
  const auto out_file = out_dir / k_records_file;
  // Never mixed into earlier records: a merge that ran before would otherwise be duplicated or
  // half-replaced. An empty file (a merge of nothing, a run that wrote nothing) is no loss.
  if (fs::exists(out_file) && (!fs::is_regular_file(out_file) || fs::file_size(out_file) > 0))
    throw merge_error(
        fmt::format("{} exists and holds records: merge writes a fresh file; choose another OUT or "
                    "remove it",
                    out_file.string()));
  merge_result result;
  auto records = collect(inputs, warnings, result);
  std::stable_sort(records.begin(), records.end(), [](const sourced_record& a, const sourced_record& b) {
    return merge_order_less(a.record, b.record);
  });
  warn_missing_shards(records, warnings);
  const auto copies = artifact_copies(records, out_dir, warnings);
  if (records.empty()) return result;
  fs::create_directories(out_dir);
  record_writer writer(out_file);   // its lock first: a second merge into OUT stops here
  if (fs::file_size(out_file) > 0)  // written while we read, before we held the lock
    throw merge_error(fmt::format("{} was written meanwhile: merge writes a fresh file", out_file.string()));
  // The files before the records: a record never names a file that is not there yet.
  for (const auto& [relative, source] : copies) {
    fs::create_directories((out_dir / relative).parent_path());
    fs::copy_file(source, out_dir / relative);
    ++result.artifact_files;
  }
  for (const auto& r : records) writer.append(r.record);
  result.records = records.size();
  return result;
}

}  // namespace pallasbench
