#include "pallasbench/record/jsonl.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include "npy_writer.hpp"

namespace pallasbench {
namespace {

std::string read_all(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::set<std::string> hashes(const std::filesystem::path& path) {
  std::set<std::string> out;
  for (const auto& [hash, record] : recorded_by_config_hash(path)) out.insert(hash);
  return out;
}

TEST(Jsonl, AppendsOneLinePerRecord) {
  testing::temp_dir dir;
  const auto path = dir / "sub" / "records.jsonl";
  {
    record_writer w(path);
    w.append({{"config_hash", "a"}, {"text", "line\nbreak"}});
    w.append({{"config_hash", "b"}});
  }
  const auto text = read_all(path);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2);
  EXPECT_EQ(hashes(path), (std::set<std::string>{"a", "b"}));
}

TEST(Jsonl, ReopeningKeepsRecordsAndDropsCutLine) {
  testing::temp_dir dir;
  const auto path = dir / "records.jsonl";
  testing::write_file(path, "{\"config_hash\": \"a\"}\n{\"config_hash\": \"b\", \"cut");
  EXPECT_EQ(hashes(path), (std::set<std::string>{"a"}));
  {
    record_writer w(path);
    w.append({{"config_hash", "c"}});
  }
  EXPECT_EQ(read_all(path), "{\"config_hash\": \"a\"}\n{\"config_hash\":\"c\"}\n");
  EXPECT_EQ(hashes(path), (std::set<std::string>{"a", "c"}));
}

TEST(Jsonl, LaterRecordOfAHashWins) {
  testing::temp_dir dir;
  const auto path = dir / "records.jsonl";
  testing::write_file(path, "{\"config_hash\": \"a\", \"n\": 1}\n{\"config_hash\": \"a\", \"n\": 2}\n");
  EXPECT_EQ(recorded_by_config_hash(path).at("a").at("n"), 2);
}

TEST(Jsonl, ReadRecordsWarnsOfCutLastLine) {
  testing::temp_dir dir;
  const auto path = dir / "records.jsonl";
  testing::write_file(path, "{\"config_hash\": \"a\"}\n{\"config_hash\": \"b\", \"cut");
  std::ostringstream warnings;
  const auto records = read_records(path, &warnings);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_NE(warnings.str().find("records.jsonl:2: the last line was cut short"), std::string::npos) << warnings.str();
}

TEST(Jsonl, ReadRecordsNamesACorruptLine) {
  testing::temp_dir dir;
  const auto path = dir / "records.jsonl";
  testing::write_file(path, "{\"config_hash\": \"a\"}\n{\"config_h\n{\"config_hash\": \"b\"}\n");
  try {
    (void)read_records(path);
    FAIL() << "a corrupt complete line was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("records.jsonl:2: not a JSON record"), std::string::npos) << e.what();
  }
}

// `bytes` gzipped into `path`, as `gzip` writes a records.jsonl.gz.
void write_gzip(const std::filesystem::path& path, const std::string& bytes) {
  gzFile file = gzopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr);
  ASSERT_EQ(gzwrite(file, bytes.data(), static_cast<unsigned>(bytes.size())), static_cast<int>(bytes.size()));
  ASSERT_EQ(gzclose(file), Z_OK);
}

TEST(Jsonl, ReadsGzippedRecordsAndAFolderOfThem) {
  testing::temp_dir dir;
  const auto path = dir / "records.jsonl.gz";
  write_gzip(path, "{\"config_hash\": \"a\"}\n{\"config_hash\": \"b\"}\n{\"cut");
  std::ostringstream warnings;
  const auto records = read_records(path, &warnings);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].at("config_hash"), "b");
  EXPECT_NE(warnings.str().find("records.jsonl.gz:3: the last line was cut short"), std::string::npos)
      << warnings.str();
  EXPECT_EQ(records_file_of(dir.path()), path);  // only the gzipped file: the folder's records
  testing::write_file(dir / "records.jsonl", "{\"config_hash\": \"c\"}\n");
  EXPECT_EQ(records_file_of(dir.path()), dir / "records.jsonl");  // the plain one first
}

TEST(Jsonl, CutGzipIsAnErrorNamingTheFile) {
  testing::temp_dir dir;
  const auto whole = dir / "whole.gz";
  write_gzip(whole, std::string(4096, ' ') + "{\"config_hash\": \"a\"}\n");
  std::ifstream in(whole, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto cut = dir / "cut.jsonl.gz";
  testing::write_file(cut, bytes.substr(0, bytes.size() / 2));
  try {
    (void)read_records(cut);
    FAIL() << "a cut gzip file was read";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cut.jsonl.gz: not a readable gzip file"), std::string::npos) << e.what();
  }
}

TEST(Jsonl, MissingFileHasNoRecords) { EXPECT_TRUE(recorded_by_config_hash("/nonexistent/records.jsonl").empty()); }

TEST(Jsonl, InvalidUtf8IsReplacedNotLost) {
  testing::temp_dir dir;
  const auto path = dir / "records.jsonl";
  {
    record_writer w(path);
    w.append({{"config_hash", "x"}, {"stderr_tail", std::string("bad \xff byte")}});
  }
  EXPECT_EQ(hashes(path), (std::set<std::string>{"x"}));
}

// flock belongs to the open file: a second writer in this very process is refused like another
// process would be, and told who holds the lock.
TEST(Jsonl, SecondWriterIsRefusedNamingTheHolder) {
  testing::temp_dir dir;
  const auto path = dir / "records.jsonl";
  record_writer first(path);
  EXPECT_EQ(flock_holder(path), ::getpid());
  try {
    record_writer second(path);
    FAIL() << "two writers hold one records file";
  } catch (const records_locked& e) {
    EXPECT_EQ(e.holder(), ::getpid());
    EXPECT_NE(std::string(e.what()).find(fmt::format("process {}", ::getpid())), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--wait-lock"), std::string::npos);
  }
}

TEST(Jsonl, LockIsReleasedWithTheWriter) {
  testing::temp_dir dir;
  const auto path = dir / "records.jsonl";
  { record_writer first(path); }
  EXPECT_EQ(flock_holder(path), std::nullopt);
  EXPECT_NO_THROW(record_writer second(path));
}

// A file size limit (RLIMIT_FSIZE, as `prlimit --fsize` sets) reached mid-record: a clear error,
// and the file still ends with the last complete record.
TEST(Jsonl, FailedAppendLeavesOnlyCompleteRecords) {
  testing::temp_dir dir;
  const auto path = dir / "records.jsonl";
  record_writer w(path);
  w.append({{"config_hash", "a"}});
  const auto kept = read_all(path);
  rlimit old{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  const auto previous = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = old;
  small.rlim_cur = kept.size() + 10;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string message;
  try {
    w.append({{"config_hash", "b"}, {"payload", std::string(100, 'x')}});
  } catch (const record_write_error& e) {
    message = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, previous);
  EXPECT_NE(message.find("cannot append the record"), std::string::npos) << message;
  EXPECT_NE(message.find("File too large"), std::string::npos) << message;
  EXPECT_NE(message.find("ends with the last complete record"), std::string::npos) << message;
  EXPECT_EQ(read_all(path), kept);
}

}  // namespace
}  // namespace pallasbench
