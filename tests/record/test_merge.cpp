#include "pallasbench/record/merge.hpp"

#include <unistd.h>

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include <gtest/gtest.h>
#include <zlib.h>

#include "npy_writer.hpp"
#include "pallasbench/record/jsonl.hpp"

namespace pallasbench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A record as far as merge reads it: its key, its identity, its order and its shard.
json shard_record(const std::string& task, int level, const std::string& size, std::optional<std::pair<int, int>> shard,
                  const std::string& uuid) {
  json r = {{"kernel_name", task}, {"level", level},
            {"size", size},        {"config_hash", task + "-" + size},
            {"uuid", uuid},        {"candidate", {{"path", "tasks/" + task + ".py"}, {"sha256", "sha-" + task}}},
            {"status", "ok"}};
  if (shard) r["shard"] = {{"index", shard->first}, {"count", shard->second}};
  return r;
}

// testing::write_file with its folders made.
void put_file(const fs::path& path, const std::string& bytes) {
  fs::create_directories(path.parent_path());
  testing::write_file(path, bytes);
}

void write_records(const fs::path& dir, const std::vector<json>& records, const std::string& tail = "") {
  std::string text;
  for (const auto& r : records) text += r.dump() + "\n";
  put_file(dir / "records.jsonl", text + tail);
}

std::vector<std::string> merged_order(const fs::path& file) {
  std::vector<std::string> out;
  for (const auto& r : read_records(file))
    out.push_back(r["kernel_name"].get<std::string>() + "/" + r["size"].get<std::string>());
  return out;
}

std::string merge_error_of(const fs::path& out, const std::vector<fs::path>& inputs) {
  std::ostringstream warnings;
  try {
    (void)merge_records(out, inputs, warnings);
  } catch (const merge_error& e) {
    return e.what();
  }
  return "(merged)";
}

TEST(Merge, UnionsShardsInTheUnshardedRunsOrder) {
  testing::temp_dir dir;
  // Shards hold their items in selection order each; the union interleaves them.
  write_records(dir / "s1",
                {shard_record("add", 1, "small", {{1, 2}}, "u1"), shard_record("swiglu", 2, "small", {{1, 2}}, "u2")});
  write_records(dir / "s2",
                {shard_record("relu", 1, "medium", {{2, 2}}, "u3"), shard_record("relu", 1, "small", {{2, 2}}, "u4"),
                 shard_record("gelu", 1, "small", {{2, 2}}, "u5")});
  std::ostringstream warnings;
  const auto result = merge_records(dir / "out", {dir / "s2", dir / "s1"}, warnings);
  EXPECT_EQ(result.records, 5u);
  EXPECT_EQ(result.duplicates, 0u);
  // Level, then name (the selection), then size: the inputs' order does not matter.
  EXPECT_EQ(merged_order(dir / "out" / "records.jsonl"),
            (std::vector<std::string>{"add/small", "gelu/small", "relu/small", "relu/medium", "swiglu/small"}));
  EXPECT_EQ(warnings.str(), "");
}

TEST(Merge, ReadsAShardFolderHoldingOnlyGzippedRecords) {
  testing::temp_dir dir;
  write_records(dir / "s1", {shard_record("add", 1, "small", {{1, 2}}, "u1")});
  fs::create_directories(dir / "s2");
  const std::string text = shard_record("relu", 1, "small", {{2, 2}}, "u2").dump() + "\n";
  gzFile gz = gzopen((dir / "s2" / "records.jsonl.gz").c_str(), "wb");
  ASSERT_NE(gz, nullptr);
  ASSERT_EQ(gzwrite(gz, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
  ASSERT_EQ(gzclose(gz), Z_OK);
  std::ostringstream warnings;
  EXPECT_EQ(merge_records(dir / "out", {dir / "s1", dir / "s2"}, warnings).records, 2u);
  EXPECT_EQ(merged_order(dir / "out" / "records.jsonl"), (std::vector<std::string>{"add/small", "relu/small"}));
  EXPECT_EQ(warnings.str(), "");
}

TEST(Merge, WritesEachRecordAsItWas) {
  testing::temp_dir dir;
  const auto r = shard_record("relu", 1, "small", std::nullopt, "u1");
  write_records(dir / "a", {r});
  std::ostringstream warnings;
  (void)merge_records(dir / "out", {dir / "a"}, warnings);
  std::ifstream in(dir / "out" / "records.jsonl");
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, r.dump());
}

TEST(Merge, AnIdenticalRecordSeenTwiceIsKeptOnce) {
  testing::temp_dir dir;
  const auto r = shard_record("relu", 1, "small", {{1, 1}}, "u1");
  write_records(dir / "a", {r});
  write_records(dir / "b", {r, shard_record("add", 1, "small", {{1, 1}}, "u2")});
  std::ostringstream warnings;
  const auto result = merge_records(dir / "out", {dir / "a", dir / "b", dir / "a"}, warnings);
  EXPECT_EQ(result.records, 2u);
  EXPECT_EQ(result.duplicates, 2u);
  EXPECT_EQ(merged_order(dir / "out" / "records.jsonl"), (std::vector<std::string>{"add/small", "relu/small"}));
}

TEST(Merge, TwoDifferentRecordsOfOneConfigurationConflict) {
  testing::temp_dir dir;
  write_records(dir / "a", {shard_record("add", 1, "small", std::nullopt, "u0"),
                            shard_record("relu", 1, "small", std::nullopt, "u1")});
  write_records(dir / "b", {shard_record("relu", 1, "small", {{1, 3}}, "u2")});  // evaluated again
  const auto message = merge_error_of(dir / "out", {dir / "a", dir / "b"});
  EXPECT_NE(message.find("conflicting records of task 'relu' (small)"), std::string::npos) << message;
  EXPECT_NE(message.find((dir / "a" / "records.jsonl").string() + ":2"), std::string::npos) << message;
  EXPECT_NE(message.find((dir / "b" / "records.jsonl").string() + ":1"), std::string::npos) << message;
  EXPECT_NE(message.find("config_hash relu-small"), std::string::npos) << message;
  EXPECT_FALSE(fs::exists(dir / "out")) << "nothing is written when merge refuses";
}

TEST(Merge, OneUuidOnTwoDifferentRecordsConflicts) {
  testing::temp_dir dir;
  write_records(dir / "a", {shard_record("relu", 1, "small", std::nullopt, "same")});
  write_records(dir / "b", {shard_record("relu", 1, "medium", std::nullopt, "same")});
  const auto message = merge_error_of(dir / "out", {dir / "a", dir / "b"});
  EXPECT_NE(message.find("under one uuid (same)"), std::string::npos) << message;
}

TEST(Merge, ACutLastLineIsSkippedWithAWarning) {
  testing::temp_dir dir;
  write_records(dir / "a", {shard_record("relu", 1, "small", std::nullopt, "u1")}, R"({"kernel_name": "add", "cut)");
  std::ostringstream warnings;
  const auto result = merge_records(dir / "out", {dir / "a"}, warnings);
  EXPECT_EQ(result.records, 1u);
  EXPECT_NE(warnings.str().find((dir / "a" / "records.jsonl").string() + ":2: the last line was cut short"),
            std::string::npos)
      << warnings.str();
}

TEST(Merge, ACorruptLineOrARecordWithoutItsKeyIsRefused) {
  testing::temp_dir dir;
  put_file(dir / "a" / "records.jsonl", "not json\n");
  EXPECT_NE(merge_error_of(dir / "out", {dir / "a"}).find(":1: not a JSON record"), std::string::npos);
  put_file(dir / "b" / "records.jsonl", "{\"kernel_name\": \"relu\"}\n");
  EXPECT_NE(merge_error_of(dir / "out", {dir / "b"}).find(":1: a record without config_hash"), std::string::npos);
  EXPECT_NE(merge_error_of(dir / "out", {dir / "nowhere"}).find("no such folder or records file"), std::string::npos);
}

TEST(Merge, AMissingShardIsWarnedAbout) {
  testing::temp_dir dir;
  write_records(dir / "s1", {shard_record("add", 1, "small", {{1, 3}}, "u1")});
  write_records(dir / "s3", {shard_record("relu", 1, "small", {{3, 3}}, "u3")});
  write_records(dir / "other", {shard_record("gelu", 1, "small", {{2, 2}}, "u4")});  // another count, on its own
  fs::create_directories(dir / "s2");  // a shard that got no work writes no records.jsonl
  std::ostringstream warnings;
  const auto result = merge_records(dir / "out", {dir / "s1", dir / "s2", dir / "s3", dir / "other"}, warnings);
  EXPECT_EQ(result.records, 3u);
  const auto text = warnings.str();
  EXPECT_NE(text.find((dir / "s2").string() + ": no records.jsonl"), std::string::npos) << text;
  EXPECT_NE(text.find("shards 1/3 and 3/3 merged; 2/3 missing"), std::string::npos) << text;
  EXPECT_NE(text.find("shard 2/2 merged; 1/2 missing"), std::string::npos) << text;
}

TEST(Merge, ARecordsFileStillBeingWrittenIsWarnedAbout) {
  testing::temp_dir dir;
  record_writer running(dir / "s1" / "records.jsonl");
  running.append(shard_record("relu", 1, "small", std::nullopt, "u1"));
  std::ostringstream warnings;
  EXPECT_EQ(merge_records(dir / "out", {dir / "s1"}, warnings).records, 1u);
  EXPECT_NE(warnings.str().find(fmt::format("is being written by process {}", ::getpid())), std::string::npos)
      << warnings.str();
}

TEST(Merge, AllShardsPresentWarnNothing) {
  testing::temp_dir dir;
  write_records(dir / "s1", {shard_record("add", 1, "small", {{1, 2}}, "u1")});
  write_records(dir / "s2", {shard_record("relu", 1, "small", {{2, 2}}, "u2")});
  std::ostringstream warnings;
  (void)merge_records(dir / "out", {dir / "s1", dir / "s2"}, warnings);
  EXPECT_EQ(warnings.str(), "");
}

TEST(Merge, NothingToMergeWritesNoRecordsFile) {
  testing::temp_dir dir;
  fs::create_directories(dir / "empty");
  std::ostringstream warnings;
  const auto result = merge_records(dir / "out", {dir / "empty"}, warnings);
  EXPECT_EQ(result.records, 0u);
  EXPECT_FALSE(fs::exists(dir / "out" / "records.jsonl"));
}

TEST(Merge, AnOutputThatHoldsRecordsIsRefused) {
  testing::temp_dir dir;
  write_records(dir / "a", {shard_record("relu", 1, "small", std::nullopt, "u1")});
  write_records(dir / "out", {shard_record("add", 1, "small", std::nullopt, "u0")});
  EXPECT_NE(merge_error_of(dir / "out", {dir / "a"}).find("exists and holds records"), std::string::npos);
  put_file(dir / "out" / "records.jsonl", "");  // empty: nothing is lost by writing it
  std::ostringstream warnings;
  EXPECT_EQ(merge_records(dir / "out", {dir / "a"}, warnings).records, 1u);
}

json with_artifact(json record, const std::string& path) {
  record["artifacts"] = {{"mode", "files"}, {"ptx", {{"path", path}, {"bytes", 3}}}};
  return record;
}

TEST(Merge, CopiesTheArtifactFilesRecordsName) {
  testing::temp_dir dir;
  write_records(dir / "s1", {with_artifact(shard_record("relu", 1, "small", {{1, 2}}, "u1"), "artifacts/relu/k.ptx")});
  put_file(dir / "s1" / "artifacts" / "relu" / "k.ptx", "ptx");
  put_file(dir / "s1" / "artifacts" / "stray.txt", "no record names it");
  write_records(dir / "s2", {with_artifact(shard_record("add", 1, "small", {{2, 2}}, "u2"), "artifacts/add/k.ptx")});
  put_file(dir / "s2" / "artifacts" / "add" / "k.ptx", "PTX");
  std::ostringstream warnings;
  const auto result = merge_records(dir / "out", {dir / "s1", dir / "s2"}, warnings);
  EXPECT_EQ(result.artifact_files, 2u);
  std::ifstream relu(dir / "out" / "artifacts" / "relu" / "k.ptx"), add(dir / "out" / "artifacts" / "add" / "k.ptx");
  std::string relu_text, add_text;
  relu >> relu_text, add >> add_text;
  EXPECT_EQ(relu_text, "ptx");
  EXPECT_EQ(add_text, "PTX");
  EXPECT_FALSE(fs::exists(dir / "out" / "artifacts" / "stray.txt"));
}

TEST(Merge, TwoDifferentArtifactFilesOfOneNameAreRefused) {
  testing::temp_dir dir;
  write_records(dir / "s1", {with_artifact(shard_record("relu", 1, "small", std::nullopt, "u1"), "artifacts/k.ptx")});
  put_file(dir / "s1" / "artifacts" / "k.ptx", "one");
  write_records(dir / "s2", {with_artifact(shard_record("add", 1, "small", std::nullopt, "u2"), "artifacts/k.ptx")});
  put_file(dir / "s2" / "artifacts" / "k.ptx", "two");
  const auto message = merge_error_of(dir / "out", {dir / "s1", dir / "s2"});
  EXPECT_NE(message.find("artifact file artifacts/k.ptx differs between"), std::string::npos) << message;
  EXPECT_FALSE(fs::exists(dir / "out"));
  // The same bytes under one name are one file.
  put_file(dir / "s2" / "artifacts" / "k.ptx", "one");
  std::ostringstream warnings;
  EXPECT_EQ(merge_records(dir / "out", {dir / "s1", dir / "s2"}, warnings).artifact_files, 1u);
}

TEST(Merge, AnArtifactPathOutsideItsFolderIsRefused) {
  testing::temp_dir dir;
  write_records(dir / "s1", {with_artifact(shard_record("relu", 1, "small", std::nullopt, "u1"), "../secret")});
  EXPECT_NE(merge_error_of(dir / "out", {dir / "s1"}).find("is not inside the records' folder"), std::string::npos);
  write_records(dir / "s2", {with_artifact(shard_record("relu", 1, "small", std::nullopt, "u1"), "/etc/passwd")});
  EXPECT_NE(merge_error_of(dir / "out", {dir / "s2"}).find("is not inside the records' folder"), std::string::npos);
}

}  // namespace
}  // namespace pallasbench
