#include "pallasbench/record/record_bound.hpp"

#include <gtest/gtest.h>

namespace pallasbench {
namespace {

using nlohmann::json;

json big_record() {
  return {{"status", "ok"},
          {"result", {{"correctness_passed", true}}},
          {"source_original", std::string(3000, 's')},
          {"jaxpr", std::string(2000, 'j')},
          {"artifacts", {{"sass", {{"text", std::string(5000, 'x')}, {"bytes", 5000}}}}}};
}

TEST(RecordBound, WithinTheBoundNothingChanges) {
  auto record = big_record();
  const auto before = record;
  EXPECT_EQ(bound_record(record, 1 << 20), 0u);
  EXPECT_EQ(record, before);
}

TEST(RecordBound, LargestLessImportantTextsGoFirstAndAreNamed) {
  auto record = big_record();
  EXPECT_EQ(bound_record(record, 6000), 1u);
  EXPECT_FALSE(record["artifacts"]["sass"].contains("text"));
  EXPECT_EQ(record["artifacts"]["sass"]["bytes"], 5000);  // what it was stays known
  EXPECT_EQ(record["omitted"], json::array({"artifacts.sass.text (5002 bytes)"}));
  EXPECT_EQ(record["source_original"].get<std::string>().size(), 3000u);
  EXPECT_LE(record.dump().size(), 6000u);
}

TEST(RecordBound, CardColumnsStayAsEmptyStrings) {
  auto record = big_record();
  EXPECT_EQ(bound_record(record, 300), 3u);
  EXPECT_EQ(record["jaxpr"], "");
  EXPECT_EQ(record["source_original"], "");
  EXPECT_EQ(record["result"]["correctness_passed"], true);  // the verdict is never dropped
  EXPECT_LE(record.dump().size(), 300u);
}

}  // namespace
}  // namespace pallasbench
