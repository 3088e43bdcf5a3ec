#include "pallasbench/record/arrow_stable.hpp"

#include <gtest/gtest.h>

namespace pallasbench {
namespace {

using nlohmann::json;

TEST(ArrowStable, NullMembersAreLeftOutAtEveryDepth) {
  const auto out = arrow_stable({{"error", nullptr},
                                 {"timing", {{"speedup", nullptr}, {"median_us", 2.5}}},
                                 {"pallas_calls", json::array({{{"name", nullptr}, {"grid", {4}}}})}});
  EXPECT_EQ(out, (json{{"timing", {{"median_us", 2.5}}}, {"pallas_calls", json::array({{{"grid", {4}}}})}}));
}

TEST(ArrowStable, KeyedMapsBecomeEntryLists) {
  const json kernel = {
      {"global_loads", {{"16", 8}, {"4", 2}}}, {"ptx", {{"special_functions", {{"ex2", 3}}}}}, {"registers", 32}};
  const auto out = arrow_stable(
      {{"artifacts", {{"summary", {{"kernels", {kernel}}}}}}, {"correctness", {{"stress_skipped", json::object()}}}});
  const auto& k = out["artifacts"]["summary"]["kernels"][0];
  EXPECT_EQ(k["global_loads"], json::parse(R"([{"key": "16", "value": 8}, {"key": "4", "value": 2}])"));
  EXPECT_EQ(k["ptx"]["special_functions"], json::parse(R"([{"key": "ex2", "value": 3}])"));
  EXPECT_EQ(k["registers"], 32);
  EXPECT_EQ(out["correctness"]["stress_skipped"], json::array());  // empty map: empty list
}

TEST(ArrowStable, AnUnknownCacheHitIsLeftOut) {
  // compile.cache (docs/record_schema.md): "hit" is null when the compile never looked the cache up.
  const auto out = arrow_stable({{"compile", {{"compile_s", 0.5}, {"cache", {{"enabled", false}, {"hit", nullptr}}}}}});
  EXPECT_EQ(out, (json{{"compile", {{"compile_s", 0.5}, {"cache", {{"enabled", false}}}}}}));
}

TEST(ArrowStable, OtherObjectsAreKept) {
  const json record = {{"environment", {{"jax", "0.10.2"}, {"gpu", {{"timer", "cupti"}}}}}};
  EXPECT_EQ(arrow_stable(record), record);
}

TEST(ArrowStable, ShardIsAStructOfIntsOrLeftOut) {
  // Unsharded records leave `shard` out rather than null; sharded ones keep it as it is.
  EXPECT_EQ(arrow_stable({{"shard", nullptr}, {"size", "small"}}), (json{{"size", "small"}}));
  const json sharded = {{"shard", {{"index", 2}, {"count", 8}}}};
  EXPECT_EQ(arrow_stable(sharded), sharded);
}

}  // namespace
}  // namespace pallasbench
