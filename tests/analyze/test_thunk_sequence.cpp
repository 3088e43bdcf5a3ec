#include "pallasbench/analyze/thunk_sequence.hpp"

#include <gtest/gtest.h>

#include <string>

#include "parse_error.hpp"

namespace pallasbench {
namespace {

using testing::parse_error;

TEST(CompilerParsers, ThunkKindsAndAnnotations) {
  const auto launches = parse_thunk_sequence(
      "001: kCustomKernel [source | sink] _body grid: [256, 1, 1] threads: [128, 1, 1]  shared_memory: 57344 bytes\n"
      "  002: kCopy\n"
      "003: kKernel\t, kernel = fusion_1, launch dimensions = blocks: {8, 2, 1}, threads/block: {64, 1, 1}, "
      "shared memory [B]: 256, cluster_dim = nullopt\n");
  ASSERT_EQ(launches.size(), 3u);
  EXPECT_EQ(launches[0].name, "_body");
  EXPECT_EQ(launches[0].grid, (dim3_values{256, 1, 1}));
  EXPECT_FALSE(launches[0].cluster.has_value());
  EXPECT_EQ(launches[1].kind, "kCopy");
  EXPECT_TRUE(launches[1].name.empty());
  EXPECT_EQ(launches[2].name, "fusion_1");
  EXPECT_EQ(launches[2].grid, (dim3_values{8, 2, 1}));
  EXPECT_EQ(launches[2].threads, (dim3_values{64, 1, 1}));
  EXPECT_EQ(launches[2].shared_memory_bytes, 256);
}

TEST(CompilerParsers, MalformedThunkSequenceNamesArtifactAndLine) {
  EXPECT_NE(parse_error(parse_thunk_sequence,
                        "001: kCopy\n002: kCustomKernel _body grid: [256, 1] threads: [128, 1, 1] "
                        "shared_memory: 0 bytes\n")
                .find("thunk sequence line 2: unreadable kCustomKernel launch"),
            std::string::npos);
  EXPECT_NE(parse_error(parse_thunk_sequence, "001: kKernel launch dimensions = blocks: {1, 1, 1}\n")
                .find("thunk sequence line 1: kKernel without 'kernel = NAME'"),
            std::string::npos);
}

}  // namespace
}  // namespace pallasbench
