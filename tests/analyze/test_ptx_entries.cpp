#include "pallasbench/analyze/ptx_entries.hpp"

#include <gtest/gtest.h>

#include <string>

#include "parse_error.hpp"

namespace pallasbench {
namespace {

using testing::parse_error;

TEST(CompilerParsers, PtxCpAsyncSizesAndDeclarations) {
  const auto entries = parse_ptx(
      ".visible .entry _decl(.param .u64 p);\n"
      ".visible .entry _k(.param .u64 p) .reqntid 64 {\n"
      "  cp.async.ca.shared.global [%r1], [%rd1], 8;\n"
      "  @!%p1 cp.async.cg.shared.global [ %r2 + 0 ], [ %rd2 + 0 ], 0x10, %r3;\n"
      "  ld.global.v2.b64 {%rd3, %rd4}, [%rd1];\n"
      "}\n");
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].name, "_k");
  EXPECT_EQ(entries[0].reqntid, (dim3_values{64, 1, 1}));
  EXPECT_EQ(entries[0].async_copies, (width_counts{{8, 1}, {16, 1}}));
  EXPECT_EQ(entries[0].global_loads, (width_counts{{16, 1}}));
}

TEST(CompilerParsers, MalformedPtxNamesArtifactAndLine) {
  EXPECT_NE(parse_error(parse_ptx, ".version 9.0\n.visible .entry _k(\n)\n{\n  ret;\n")
                .find("PTX line 2: .entry _k is not closed"),
            std::string::npos);
  EXPECT_NE(parse_error(parse_ptx, ".entry _k()\n.reqntid 128, x\n{\n}\n").find("PTX line 2: 'x' is not a number"),
            std::string::npos);
  EXPECT_NE(parse_error(parse_ptx, ".entry _k()\n{\n  ld.global.v4.q32 {%r1}, [%rd1];\n}\n")
                .find("PTX line 3: unknown type '.q32'"),
            std::string::npos);
  EXPECT_NE(parse_error(parse_ptx, ".entry _k()\n{\n  cp.async.cg.shared.global [%r1], [%rd1];\n}\n")
                .find("PTX line 3: cp.async without a copy size"),
            std::string::npos);
}

}  // namespace
}  // namespace pallasbench
