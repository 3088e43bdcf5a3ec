#include "pallasbench/analyze/ptxas_report.hpp"

#include <gtest/gtest.h>

#include <string>

#include "parse_error.hpp"

namespace pallasbench {
namespace {

using testing::parse_error;

TEST(CompilerParsers, PtxasReportForms) {
  const auto report = parse_ptxas_report(
      "ptxas info    : Function properties for _k\n"
      "    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
      "ptxas info    : Used 32 registers, 2 textures, 4096 bytes smem, 356 bytes cmem[0]\n"
      "ptxas error   : Entry function '_bad' uses too much shared data\n");
  ASSERT_EQ(report.functions.size(), 1u);
  const auto& f = report.functions[0];
  EXPECT_TRUE(f.entry);  // no "Compiling entry function" line: the "Used" line makes it one
  EXPECT_EQ(f.registers, 32);
  EXPECT_FALSE(f.barriers.has_value());
  EXPECT_EQ(f.stack_frame_bytes, 8);
  EXPECT_EQ(f.spill_store_bytes, 4);
  EXPECT_EQ(f.shared_memory_bytes, 4096);
  EXPECT_EQ(f.constant_memory_bytes.at(0), 356);
  ASSERT_EQ(report.errors.size(), 1u);
  EXPECT_EQ(report.errors[0], "Entry function '_bad' uses too much shared data");
}

TEST(CompilerParsers, MalformedPtxasNamesArtifactAndLine) {
  EXPECT_EQ(parse_error(parse_ptxas_report,
                        "ptxas info    : Compiling entry function 'k' for 'sm_90a'\n"
                        "ptxas info    : Used many registers, used 1 barriers\n"),
            "ptxas report line 2: unreadable clause 'Used many registers': "
            "'ptxas info    : Used many registers, used 1 barriers'");
  EXPECT_NE(parse_error(parse_ptxas_report, "ptxas info : 0 bytes gmem\nSegmentation fault\n")
                .find("ptxas report line 2: not a ptxas line"),
            std::string::npos);
  EXPECT_NE(parse_error(parse_ptxas_report,
                        "ptxas info : Compiling entry function 'k' for 'sm_80'\n"
                        "ptxas info : Compiling entry function 'k' for 'sm_90a'\n")
                .find("line 2: entry compiled twice"),
            std::string::npos);
  EXPECT_NE(parse_error(parse_ptxas_report, "ptxas info : Used 8 registers\n").find("line 1: resource usage before"),
            std::string::npos);
}

}  // namespace
}  // namespace pallasbench
