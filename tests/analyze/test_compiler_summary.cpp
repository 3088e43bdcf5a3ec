#include "pallasbench/analyze/compiler_summary.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pallasbench {
namespace {

using nlohmann::json;

const std::filesystem::path k_compiler_fixtures = std::filesystem::path(PALLASBENCH_TEST_DATA) / "fixtures" / "compiler";

// The real capture of the suite's kernels on the H200 (README.md there says how).
json h200_summary(const std::string& task) {
  return summarize_compiler_output(read_compiler_texts(k_compiler_fixtures / "h200_2026-11-30" / task));
}

json synthetic_summary(const std::optional<std::vector<std::string>>& names = std::nullopt) {
  return summarize_compiler_output(read_compiler_texts(k_compiler_fixtures / "synthetic_multi_function"), names);
}

const json& only_kernel(const json& summary) {
  EXPECT_EQ(summary["kernels"].size(), 1u) << summary.dump(1);
  return summary["kernels"].at(0);
}

// Two Pallas calls in one jitted function (a pack kernel, then the matmul) land in separate PTX
// modules of XLA's dump: the worker concatenates the modules, their ptxas reports and their SASS.
TEST(CompilerSummary, ConcatenatedModulesKeepEachKernel) {
  auto matmul = read_compiler_texts(k_compiler_fixtures / "h200_2026-11-30" / "matmul");
  const auto relu = read_compiler_texts(k_compiler_fixtures / "h200_2026-11-30" / "relu");
  matmul.ptx = *relu.ptx + *matmul.ptx;
  matmul.ptxas_report = *relu.ptxas_report + *matmul.ptxas_report;
  matmul.sass = *relu.sass + *matmul.sass;
  matmul.thunk_sequence =
      "001: kCustomKernel [source | next=002 (1)] _relu_body grid: [2048, 1, 1] threads: [256, 1, 1]  shared_memory: "
      "0 bytes\n002: kCustomKernel [prev=001 (1) | sink] _body grid: [256, 1, 1] threads: [128, 1, 1]  "
      "shared_memory: 57344 bytes\n";
  const auto s = summarize_compiler_output(matmul);
  ASSERT_EQ(s["kernels"].size(), 2u) << s.dump(1);
  EXPECT_EQ(s["kernels"][0]["name"], "_relu_body");
  EXPECT_EQ(s["kernels"][0]["registers"], 40);
  EXPECT_EQ(s["kernels"][0]["tensor_core"], "none");
  EXPECT_EQ(s["kernels"][1]["registers"], 95);
  EXPECT_EQ(s["kernels"][1]["tensor_core"], "wgmma");
  EXPECT_EQ(s["kernels"][1]["ptx"]["tensor_core"], "wgmma");
  EXPECT_TRUE(s["kernels"][0]["missing"].empty()) << s["kernels"][0]["missing"].dump();
  EXPECT_EQ(s["max_registers"], 95);
}

TEST(CompilerSummary, MatmulUsesWgmmaWithCpAsyncLoads) {
  const auto s = h200_summary("matmul");
  const auto& k = only_kernel(s);
  EXPECT_EQ(k["name"], "_body");
  EXPECT_EQ(k["thunk_kind"], "kCustomKernel");
  EXPECT_EQ(k["grid"], json({256, 1, 1}));
  EXPECT_EQ(k["threads"], json({128, 1, 1}));
  EXPECT_EQ(k["threads_per_block"], 128);
  EXPECT_EQ(k["shared_memory_bytes"], 57344);
  EXPECT_EQ(k["registers"], 95);
  EXPECT_EQ(k["barriers"], 1);
  EXPECT_EQ(k["stack_frame_bytes"], 0);
  EXPECT_EQ(k["spill_store_bytes"], 0);
  EXPECT_EQ(k["spill_load_bytes"], 0);
  EXPECT_EQ(k["uses_local_memory"], false);
  EXPECT_EQ(k["tensor_core"], "wgmma");
  EXPECT_EQ(k["tensor_core_instructions"], json({{"HGMMA.64x64x8.F32.TF32", 4}}));
  EXPECT_EQ(k["global_loads"], json::object());
  EXPECT_EQ(k["async_copies"], json({{"16", 32}}));
  EXPECT_EQ(k["widest_global_load_bytes"], 16);
  EXPECT_EQ(k["global_stores"], json({{"16", 8}}));
  EXPECT_EQ(k["ldmatrix"], 4);
  EXPECT_EQ(k["special_functions"], json({{"MUFU.RCP", 1}}));
  EXPECT_EQ(k["missing"], json::object());
}

TEST(CompilerSummary, MatmulSkipsNopAndNeverExecutedFillers) {
  const auto s = h200_summary("matmul");
  const auto& k = only_kernel(s);
  // 536 listed: 12 NOP and 10 "@!PT LDS RZ, [RZ]" execute nothing.
  EXPECT_EQ(k["instructions"], 514);
  EXPECT_EQ(k["shared_loads"], json({{"16", 12}}));
  EXPECT_EQ(k["shared_stores"], json({{"4", 16}, {"16", 8}}));
}

TEST(CompilerSummary, MatmulPtxAgreesWithSass) {
  const auto s = h200_summary("matmul");
  const auto& k = only_kernel(s);
  const auto& ptx = k["ptx"];
  EXPECT_EQ(ptx["reqntid"], json({128, 1, 1}));
  EXPECT_EQ(ptx["maxntid"], nullptr);
  EXPECT_EQ(ptx["tensor_core"], "wgmma");
  EXPECT_EQ(ptx["tensor_core_instructions"], json({{"wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32", 4}}));
  EXPECT_EQ(ptx["async_copies"], k["async_copies"]);
  EXPECT_EQ(ptx["global_stores"], k["global_stores"]);
  EXPECT_EQ(ptx["reqntid"][0], k["threads_per_block"]);
}

TEST(CompilerSummary, SoftmaxLoadsSixteenBytesAndUsesEx2) {
  const auto s = h200_summary("softmax");
  const auto& k = only_kernel(s);
  EXPECT_EQ(k["name"], "_softmax_rows");
  EXPECT_EQ(k["registers"], 64);
  EXPECT_EQ(k["barriers"], 1);
  EXPECT_EQ(k["threads"], json({256, 1, 1}));
  EXPECT_EQ(k["grid"], json({512, 1, 1}));
  EXPECT_EQ(k["shared_memory_bytes"], 128);
  EXPECT_EQ(k["global_loads"], json({{"16", 8}}));
  EXPECT_EQ(k["global_stores"], json({{"16", 8}}));
  EXPECT_EQ(k["special_functions"], json({{"MUFU.EX2", 32}, {"MUFU.RCP", 4}}));
  EXPECT_EQ(k["ptx"]["special_functions"], json({{"ex2", 32}}));
  // FFMA 64 + FFMA.SAT 32 + FFMA.RM 32 (the exp range reduction).
  EXPECT_EQ(k["ffma"], 128);
  EXPECT_EQ(k["fmul"], 80);
  EXPECT_EQ(k["fadd"], 124);
  EXPECT_EQ(k["instructions"], 593);
}

TEST(CompilerSummary, SoftmaxHfma2MmaIsNoTensorCore) {
  // The SASS holds two HFMA2.MMA (a move through the FMA pipe), which must not read as mma.
  const auto s = h200_summary("softmax");
  EXPECT_EQ(only_kernel(s)["tensor_core"], "none");
  EXPECT_EQ(only_kernel(s)["tensor_core_instructions"], json::object());
  EXPECT_EQ(s["tensor_core"], "none");
}

TEST(CompilerSummary, ReluIsEightWideLoadsAndStores) {
  const auto s = h200_summary("relu");
  const auto& k = only_kernel(s);
  EXPECT_EQ(k["registers"], 40);
  EXPECT_EQ(k["barriers"], 0);
  EXPECT_EQ(k["grid"], json({2048, 1, 1}));
  EXPECT_EQ(k["threads_per_block"], 256);
  EXPECT_EQ(k["shared_memory_bytes"], 0);
  EXPECT_EQ(k["global_loads"], json({{"16", 8}}));
  EXPECT_EQ(k["global_stores"], json({{"16", 8}}));
  EXPECT_EQ(k["tensor_core"], "none");
  EXPECT_EQ(k["ffma"], 0);
  EXPECT_EQ(k["instructions"], 72);
  EXPECT_EQ(k["ptx"]["global_loads"], json({{"16", 8}}));
}

TEST(CompilerSummary, AggregatesOverTheKernel) {
  const auto s = h200_summary("matmul");
  EXPECT_EQ(s["summary_version"], 1);
  EXPECT_EQ(s["selected_by"], "thunk_sequence");
  EXPECT_EQ(s["sass_arch"], "sm_90a");
  EXPECT_EQ(s["tensor_core"], "wgmma");
  EXPECT_EQ(s["max_registers"], 95);
  EXPECT_EQ(s["spills"], false);
  EXPECT_EQ(s["missing"], json::object());
}

TEST(CompilerSummary, DefaultSelectionIsTheCustomKernelsOnly) {
  const auto s = synthetic_summary();
  ASSERT_EQ(s["kernels"].size(), 2u) << s.dump(1);
  // XLA's loop_add_fusion (kKernel) and the device function __internal_accurate_exp stay out.
  EXPECT_EQ(s["kernels"][0]["name"], "_relu_body");
  EXPECT_EQ(s["kernels"][1]["name"], "_attention_body");
  EXPECT_EQ(s["kernels"][0]["launches"], 2);
  EXPECT_EQ(s["max_registers"], 168);
  EXPECT_EQ(s["spills"], true);
  EXPECT_EQ(s["tensor_core"], "wgmma");
}

TEST(CompilerSummary, SelectedKernelsKeepTheirOwnNumbers) {
  const auto s = synthetic_summary();
  const auto& relu = s["kernels"][0];
  EXPECT_EQ(relu["registers"], 40);
  EXPECT_EQ(relu["spill_store_bytes"], 0);
  EXPECT_EQ(relu["global_loads"], json({{"16", 8}}));
  EXPECT_EQ(relu["tensor_core"], "none");
  EXPECT_EQ(relu["instructions"], 72);
  EXPECT_EQ(relu["ptx"]["reqntid"], json({256, 1, 1}));
  EXPECT_EQ(relu["ptx"]["special_functions"], json::object());  // the .func's ex2 is not relu's
}

TEST(CompilerSummary, AttentionResourcesFromTheVariantReport) {
  const auto s = synthetic_summary();
  const auto& k = s["kernels"][1];
  EXPECT_EQ(k["registers"], 168);  // the "Used" line after the device function's properties
  EXPECT_EQ(k["barriers"], 2);
  EXPECT_EQ(k["stack_frame_bytes"], 24);
  EXPECT_EQ(k["spill_store_bytes"], 24);
  EXPECT_EQ(k["spill_load_bytes"], 16);
  EXPECT_EQ(k["uses_local_memory"], true);
  EXPECT_EQ(k["static_shared_memory_bytes"], 1024);
  EXPECT_EQ(k["constant_memory_bytes"], json({{"0", 400}, {"2", 8}}));
  EXPECT_EQ(k["grid"], json({128, 4, 1}));
  EXPECT_EQ(k["cluster"], json({2, 1, 1}));
  EXPECT_EQ(k["threads_per_block"], 384);
  EXPECT_EQ(k["shared_memory_bytes"], 196608);
}

TEST(CompilerSummary, AttentionInstructionMix) {
  const auto s = synthetic_summary();
  const auto& k = s["kernels"][1];
  EXPECT_EQ(k["instructions"], 25);
  EXPECT_EQ(k["tensor_core"], "wgmma");
  EXPECT_EQ(k["tensor_core_instructions"], json({{"HGMMA.64x128x16.F32.BF16", 2}}));
  EXPECT_EQ(k["global_loads"], json({{"2", 1}, {"16", 1}}));
  EXPECT_EQ(k["global_stores"], json({{"2", 1}}));
  EXPECT_EQ(k["widest_global_load_bytes"], 16);
  EXPECT_EQ(k["tma_loads"], 1);
  EXPECT_EQ(k["tma_stores"], 1);
  EXPECT_EQ(k["shared_loads"], json({{"8", 1}}));
  EXPECT_EQ(k["shared_stores"], json({{"16", 1}}));
  EXPECT_EQ(k["local_loads"], 1);
  EXPECT_EQ(k["local_stores"], 2);
  EXPECT_EQ(k["ffma"], 2);
  EXPECT_EQ(k["fmul"], 1);
  EXPECT_EQ(k["special_functions"], json({{"MUFU.EX2", 2}, {"MUFU.RCP", 1}}));
}

TEST(CompilerSummary, AttentionPtx) {
  const auto s = synthetic_summary();
  const auto& ptx = s["kernels"][1]["ptx"];
  EXPECT_EQ(ptx["reqntid"], nullptr);
  EXPECT_EQ(ptx["maxntid"], json({384, 1, 1}));
  EXPECT_EQ(ptx["tma_loads"], 1);
  EXPECT_EQ(ptx["tma_stores"], 1);
  EXPECT_EQ(ptx["global_loads"], json({{"2", 1}, {"16", 1}}));
  EXPECT_EQ(ptx["global_stores"], json({{"2", 1}}));
  EXPECT_EQ(ptx["tensor_core_instructions"], json({{"wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16", 2}}));
  EXPECT_EQ(ptx["special_functions"], json({{"ex2", 2}, {"rcp", 1}}));
}

TEST(CompilerSummary, GivenNamesReplaceTheDefault) {
  const auto s = synthetic_summary(std::vector<std::string>{"loop_add_fusion"});
  EXPECT_EQ(s["selected_by"], "given");
  const auto& k = only_kernel(s);
  EXPECT_EQ(k["thunk_kind"], "kKernel");
  EXPECT_EQ(k["grid"], json({64, 1, 1}));
  EXPECT_EQ(k["threads"], json({128, 1, 1}));
  EXPECT_EQ(k["shared_memory_bytes"], 0);
  EXPECT_EQ(k["registers"], 16);
  EXPECT_EQ(k["barriers"], nullptr);  // this report form does not say
  EXPECT_EQ(k["constant_memory_bytes"], json({{"0", 380}}));
  EXPECT_EQ(k["global_loads"], json({{"8", 2}}));
  EXPECT_EQ(k["fadd"], 2);
  EXPECT_EQ(s["spills"], false);
}

TEST(CompilerSummary, DeviceFunctionIsNoKernel) {
  const auto s = synthetic_summary(std::vector<std::string>{"__internal_accurate_exp"});
  const auto& k = only_kernel(s);
  EXPECT_EQ(k["registers"], nullptr);
  EXPECT_EQ(k["stack_frame_bytes"], nullptr);
  EXPECT_EQ(k["ptx"], nullptr);
  EXPECT_EQ(k["missing"]["ptxas"], "'__internal_accurate_exp' is not an entry function of the ptxas report");
  EXPECT_EQ(k["missing"]["ptx"], "no .entry __internal_accurate_exp in the PTX");
}

TEST(CompilerSummary, UnknownNameIsAllNullWithReasons) {
  const auto s = synthetic_summary(std::vector<std::string>{"_nowhere"});
  const auto& k = only_kernel(s);
  for (const auto* key : {"grid", "threads", "shared_memory_bytes", "registers", "spill_store_bytes", "instructions",
                          "tensor_core", "global_loads", "widest_global_load_bytes", "ffma", "ptx"})
    EXPECT_EQ(k[key], nullptr) << key;
  EXPECT_EQ(k["missing"].size(), 4u) << k["missing"].dump();
  EXPECT_EQ(k["missing"]["sass"], "no 'Function : _nowhere' in the SASS");
  EXPECT_EQ(s["tensor_core"], nullptr);
  EXPECT_EQ(s["max_registers"], nullptr);
  EXPECT_EQ(s["spills"], nullptr);
}

TEST(CompilerSummary, MissingArtifactsGiveNullsAndReasons) {
  auto texts = read_compiler_texts(k_compiler_fixtures / "h200_2026-11-30" / "matmul");
  texts.ptxas_report.reset();
  texts.sass = "  \n";
  const auto s = summarize_compiler_output(texts);
  const auto& k = only_kernel(s);
  EXPECT_EQ(k["grid"], json({256, 1, 1}));  // the thunk sequence is still there
  EXPECT_EQ(k["registers"], nullptr);
  EXPECT_EQ(k["uses_local_memory"], nullptr);
  EXPECT_EQ(k["tensor_core"], nullptr);
  EXPECT_EQ(k["ptx"]["tensor_core"], "wgmma");
  EXPECT_EQ(k["missing"]["ptxas"], "no ptxas report captured");
  EXPECT_EQ(k["missing"]["sass"], "the SASS is empty");
  EXPECT_EQ(s["missing"]["ptxas"], "no ptxas report captured");
  EXPECT_EQ(s["tensor_core"], nullptr);
  EXPECT_EQ(s["max_registers"], nullptr);
  EXPECT_EQ(s["spills"], nullptr);
  EXPECT_EQ(s["sass_arch"], nullptr);
}

TEST(CompilerSummary, NoNamesWithoutAThunkSequence) {
  auto texts = read_compiler_texts(k_compiler_fixtures / "h200_2026-11-30" / "relu");
  texts.thunk_sequence.reset();
  const auto s = summarize_compiler_output(texts);
  EXPECT_TRUE(s["kernels"].empty());
  EXPECT_EQ(s["missing"]["kernels"],
            "no kernel names given and no thunk sequence to take the kCustomKernel launches from");
  EXPECT_EQ(s["spills"], nullptr);
  // Named, the same texts give the kernel.
  EXPECT_EQ(summarize_compiler_output(texts, std::vector<std::string>{"_relu_body"})["max_registers"], 40);
}

TEST(CompilerSummary, ThunkSequenceWithoutCustomKernels) {
  const compiler_texts texts{.thunk_sequence =
                                 "001: kKernel , kernel = loop_add_fusion, launch dimensions = "
                                 "blocks: {1, 1, 1}, threads/block: {32, 1, 1}\n"};
  const auto s = summarize_compiler_output(texts);
  EXPECT_TRUE(s["kernels"].empty());
  EXPECT_EQ(s["missing"]["kernels"], "the thunk sequence launches no kCustomKernel");
}

TEST(CompilerSummary, MalformedArtifactFailsTheSummary) {
  auto texts = read_compiler_texts(k_compiler_fixtures / "h200_2026-11-30" / "relu");
  texts.ptxas_report = "ptxas info    : Used x registers\n";
  EXPECT_THROW((void)summarize_compiler_output(texts), std::runtime_error);
}

}  // namespace
}  // namespace pallasbench
