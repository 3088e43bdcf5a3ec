#include "pallasbench/analyze/sass_listing.hpp"

#include <gtest/gtest.h>

#include <string>

#include "parse_error.hpp"

namespace pallasbench {
namespace {

using testing::parse_error;

TEST(CompilerParsers, SassAccessWidths) {
  const auto listing = parse_sass(
      "\t\tFunction : k\n"
      "        /*0000*/  LDG.E.U8 R0, desc[UR4][R2.64] ;\n"
      "        /*0010*/  LDG.E.S16 R1, desc[UR4][R2.64] ;\n"
      "        /*0020*/  @!P0 LDG.E R4, desc[UR4][R2.64] ;  /* 0x0000000402047981 */\n"
      "        /*0030*/  LDG.E.64.CONSTANT R6, desc[UR4][R2.64] ;\n"
      "        /*0040*/  STG.E.U16 desc[UR4][R2.64], R1 ;\n"
      "        /*0050*/  LDGSTS.E.BYPASS.LTC128B.128 [R9], desc[UR4][R2.64] ;\n"
      "        /*0060*/  HMMA.16816.F32.BF16 R12, R4, R8, R12 ;\n");
  ASSERT_EQ(listing.functions.size(), 1u);
  const auto& f = listing.functions[0];
  EXPECT_EQ(f.global_loads, (width_counts{{1, 1}, {2, 1}, {4, 1}, {8, 1}}));
  EXPECT_EQ(f.global_stores, (width_counts{{2, 1}}));
  EXPECT_EQ(f.async_copies, (width_counts{{16, 1}}));  // LTC128B is a cache hint, not the width
  EXPECT_EQ(tensor_core_kind(f.tensor_core_instructions), "mma");
  EXPECT_EQ(f.instructions, 7);
}

TEST(CompilerParsers, TensorCoreKinds) {
  EXPECT_EQ(tensor_core_kind({{"HGMMA.64x64x8.F32.TF32", 4}, {"HMMA.16816.F32", 1}}), "wgmma");
  EXPECT_EQ(tensor_core_kind({{"IMMA.16832.S8.S8", 2}}), "mma");
  EXPECT_EQ(tensor_core_kind({{"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", 1}}), "mma");
  EXPECT_EQ(tensor_core_kind({}), "none");
}

TEST(CompilerParsers, MalformedSassNamesArtifactAndLine) {
  EXPECT_NE(parse_error(parse_sass, "\tcode for sm_90a\n        /*0000*/  EXIT ;\n")
                .find("SASS line 2: instruction outside any 'Function :' section"),
            std::string::npos);
  EXPECT_NE(parse_error(parse_sass, "\t\tFunction : k\n        /*0000*/  LDG.E R0, desc[UR4][R2.64]\n")
                .find("SASS line 2: instruction without ';'"),
            std::string::npos);
  EXPECT_NE(parse_error(parse_sass, "\t\tFunction : k\n\t\tFunction : k\n").find("SASS line 2: function listed twice"),
            std::string::npos);
  EXPECT_NE(parse_error(parse_sass, "\t\tFunction : k\n        /*0000*/  r0 = load(x) ;\n")
                .find("SASS line 2: not a SASS instruction"),
            std::string::npos);
}

}  // namespace
}  // namespace pallasbench
