#include "pallasbench/jsonl.hpp"

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "npy_writer.hpp"

namespace pallasbench {
namespace {

std::string read_all(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
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
  EXPECT_EQ(recorded_config_hashes(path), (std::set<std::string>{"a", "b"}));
}

TEST(Jsonl, ReopeningKeepsRecordsAndDropsCutLine) {
  testing::temp_dir dir;
  const auto path = dir / "records.jsonl";
  testing::write_file(path, "{\"config_hash\": \"a\"}\n{\"config_hash\": \"b\", \"cut");
  EXPECT_EQ(recorded_config_hashes(path), (std::set<std::string>{"a"}));
  {
    record_writer w(path);
    w.append({{"config_hash", "c"}});
  }
  EXPECT_EQ(read_all(path), "{\"config_hash\": \"a\"}\n{\"config_hash\":\"c\"}\n");
  EXPECT_EQ(recorded_config_hashes(path), (std::set<std::string>{"a", "c"}));
}

TEST(Jsonl, MissingFileHasNoHashes) { EXPECT_TRUE(recorded_config_hashes("/nonexistent/records.jsonl").empty()); }

TEST(Jsonl, InvalidUtf8IsReplacedNotLost) {
  testing::temp_dir dir;
  const auto path = dir / "records.jsonl";
  {
    record_writer w(path);
    w.append({{"config_hash", "x"}, {"stderr_tail", std::string("bad \xff byte")}});
  }
  EXPECT_EQ(recorded_config_hashes(path), (std::set<std::string>{"x"}));
}

}  // namespace
}  // namespace pallasbench
