// eval --batch's request file: every malformed line is refused up front, naming file:line.
#include "detail/batch.hpp"

#include <fstream>

#include <gtest/gtest.h>

#include "npy_writer.hpp"
#include "pallasbench/cli/commands.hpp"

namespace pallasbench::detail {
namespace {

using pallasbench::testing::temp_dir;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
  return path.string();
}

std::string refusal(const std::string& file) {
  try {
    (void)read_batch(file);
  } catch (const usage_error& e) {
    return e.what();
  }
  return "accepted";
}

TEST(Batch, ReadsInlineSourcesAndPathsRelativeToTheFile) {
  temp_dir dir;
  write(dir / "k.py", "def kernel(x):\n    return x\n");
  const auto file =
      write(dir / "b.jsonl",
            "{\"id\": \"one\", \"task\": \"relu\", \"source\": \"def kernel(x): return x\\n\"}\n"
            "\n"
            "{\"id\": 7, \"task\": \"add\", \"size\": \"medium\", \"dtype\": \"bfloat16\", \"path\": \"k.py\"}\n");
  const auto b = read_batch(file);
  ASSERT_EQ(b.requests.size(), 2u);
  EXPECT_EQ(b.requests[0].id, "one");
  EXPECT_EQ(b.requests[0].task, "relu");
  EXPECT_FALSE(b.requests[0].size.has_value());
  EXPECT_FALSE(b.requests[0].dtype.has_value());
  std::ifstream inline_source(b.requests[0].path);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(inline_source), {}), "def kernel(x): return x\n");
  EXPECT_EQ(b.requests[1].id, "7");
  EXPECT_EQ(b.requests[1].size, problem_size::medium);
  EXPECT_EQ(b.requests[1].dtype, float_dtype::bfloat16);
  EXPECT_EQ(std::filesystem::path(b.requests[1].path), (dir / "k.py").lexically_normal());
  EXPECT_EQ(b.requests[1].line, 3u);
}

TEST(Batch, TheInlineSourcesGoWithTheBatch) {
  temp_dir dir;
  const auto file = write(dir / "b.jsonl", "{\"id\": \"a\", \"task\": \"relu\", \"source\": \"x = 1\"}\n");
  std::filesystem::path written;
  {
    const auto b = read_batch(file);
    written = b.requests[0].path;
    EXPECT_TRUE(std::filesystem::exists(written));
  }
  EXPECT_FALSE(std::filesystem::exists(written));
}

TEST(Batch, RefusesMalformedRequestsNamingFileAndLine) {
  temp_dir dir;
  const auto ok = std::string("{\"id\": \"a\", \"task\": \"relu\", \"source\": \"x\"}\n");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"not json\n", "b.jsonl:1: not a JSON line"},
      {"[1, 2]\n", "b.jsonl:1: a request is a JSON object"},
      {ok + "{\"task\": \"relu\", \"source\": \"x\"}\n", "b.jsonl:2: \"id\" must be"},
      {ok + "{\"id\": \"a\", \"task\": \"relu\", \"source\": \"x\"}\n", "b.jsonl:2: id \"a\" is given twice"},
      {"{\"id\": \"a\", \"source\": \"x\"}\n", "b.jsonl:1: \"task\" must be a non-empty string"},
      {"{\"id\": \"a\", \"task\": \"relu\"}\n", "exactly one of \"source\" and \"path\""},
      {"{\"id\": \"a\", \"task\": \"relu\", \"source\": \"x\", \"path\": \"y.py\"}\n", "exactly one of"},
      {"{\"id\": \"a\", \"task\": \"relu\", \"path\": \"missing.py\"}\n", "b.jsonl:1: candidate file not found"},
      {"{\"id\": \"a\", \"task\": \"relu\", \"source\": \"x\", \"size\": \"huge\"}\n", "size \"huge\" is not small"},
      {"{\"id\": \"a\", \"task\": \"relu\", \"source\": \"x\", \"dtype\": \"fp8\"}\n",
       "b.jsonl:1: dtype \"fp8\" is not float32, bfloat16 or float16"},
      {"{\"id\": \"a\", \"task\": \"relu\", \"source\": \"x\", \"seed\": 3}\n", "unknown field \"seed\""},
      {"\n\n", "no request in it"},
  };
  for (const auto& [text, expected] : cases) {
    const auto file = write(dir / "b.jsonl", text);
    const auto message = refusal(file);
    EXPECT_TRUE(contains(message, expected)) << "input: " << text << "message: " << message;
  }
  EXPECT_TRUE(contains(refusal((dir / "absent.jsonl").string()), "cannot read the file"));
}

}  // namespace
}  // namespace pallasbench::detail
