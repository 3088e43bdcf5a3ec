#include "pallasbench/analyze/module_analysis.hpp"

#include <gtest/gtest.h>

// analyze_kernel_precision on inline PTX: Mosaic GPU lowers wgmma (and cvt, mma) to
// llvm.inline_asm, whose asm string alone names the instruction's types. The lines are the forms
// the executor decodes from a Mosaic GPU kernel (tests/python/test_compiler_artifacts.py decodes
// a real one), shortened to a few operands.

namespace pallasbench {
namespace {

std::string wgmma_line(const std::string& types) {
  return "%1193 = \"stable_mosaic_gpu.llvm.inline_asm\"(%1124, %1189, %1191, %1192) {asm_dialect = 0 : i64, "
         "asm_string = \"{ .reg .pred p; setp.ne.b32 p, $66, 0; wgmma.mma_async.sync.aligned.m64n64k8." +
         types +
         " {$0,$1}, $64, $65, p, $67, $68; }\\0A\", constraints = \"=f,=f,0,1,l,l,n,n,n\", has_side_effects} : "
         "(vector<1xf32>, vector<1xf32>, i64, i64, i32, i32, i32) -> !llvm.struct<(vector<1xf32>, vector<1xf32>)>";
}

precision_report scan(const std::string& line, const std::string& task_float = "f32", bool allow_tf32 = true) {
  module_analysis_options options;
  options.task_float = task_float;
  options.allow_tf32 = allow_tf32;
  return analyze_kernel_precision({{"mosaic_gpu_v2", "matmul", "module {\n" + line + "\n}\n", ""}}, options);
}

TEST(KernelPrecision, Tf32WgmmaInInlinePtxIsTf32) {
  const auto r = scan(wgmma_line("f32.tf32.tf32"));
  EXPECT_TRUE(r.tf32);
  EXPECT_TRUE(r.problems.empty());
  EXPECT_TRUE(r.below_class.empty());
  EXPECT_EQ(r.float_types, (std::set<std::string>{"f32", "tf32"}));
  const auto below = scan(wgmma_line("f32.tf32.tf32"), "f32", false);
  EXPECT_TRUE(below.problems.empty());  // judged by the platform's bound, not refused
  EXPECT_EQ(below.below_class,
            (std::vector<std::string>{"kernel 'matmul': TF32 dot in a task that does not declare USES_TF32"}));
}

TEST(KernelPrecision, Bf16WgmmaIsADowngradeInAFloat32TaskOnly) {
  const auto r = scan(wgmma_line("f32.bf16.bf16"));
  EXPECT_FALSE(r.tf32);
  EXPECT_EQ(r.downgrades, (std::vector<std::string>{"kernel 'matmul': bf16 in stable_mosaic_gpu.llvm.inline_asm"}));
  EXPECT_EQ(r.below_class,
            (std::vector<std::string>{"precision downgrade: kernel 'matmul': bf16 in stable_mosaic_gpu.llvm.inline_asm"}));
  EXPECT_TRUE(scan(wgmma_line("f32.bf16.bf16"), "bf16").below_class.empty());
  const auto fp8 = scan(wgmma_line("f32.e4m3.e4m3"), "bf16");
  EXPECT_EQ(fp8.downgrades,
            (std::vector<std::string>{"kernel 'matmul': f8E4M3FN in stable_mosaic_gpu.llvm.inline_asm"}));
}

TEST(KernelPrecision, ANarrowingCvtInTritonInlineAsmIsADowngrade) {
  const auto r = scan(
      "%5 = tt.elementwise_inline_asm \"cvt.rn.bf16x2.f32 $0, $2, $1;\" {constraints = \"=r,r,r\", packed_element = 2 "
      ": i32, pure = true} %3, %4 : tensor<128xf32>, tensor<128xf32> -> tensor<128xi32>");
  EXPECT_EQ(r.downgrades, (std::vector<std::string>{"kernel 'matmul': bf16 in tt.elementwise_inline_asm"}));
}

TEST(KernelPrecision, OnlyQuotedDottedSuffixesArePtxTypes) {
  // Outside strings ".f16" is part of an op or a name; inside, a suffix must be a whole word.
  EXPECT_TRUE(scan("%0 = \"llvm.mlir.addressof\"() {global_name = @global_scratch.f16} : () -> !llvm.ptr")
                  .float_types.empty());
  EXPECT_TRUE(scan("%1 = \"stable_mosaic_gpu.llvm.inline_asm\"() {asm_string = \"ld.shared.b32 $0, [$1]; .f16abc\", "
                   "constraints = \"=r,r\"} : () -> i32")
                  .float_types.empty());
  // An escaped quote does not end the string.
  const auto r = scan("%2 = \"x.asm\"() {asm_string = \"mov \\\"a\\\"; cvt.rn.f16.f32 $0, $1;\"} : () -> i16");
  EXPECT_EQ(r.float_types, (std::set<std::string>{"f16", "f32"}));
}

}  // namespace
}  // namespace pallasbench
