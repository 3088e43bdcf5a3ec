// Data movement outside the Pallas kernels (module_analysis.hpp): data-dependent addressing is
// refused, and the bytes movement ops put at another index count against the task's volume,
// except what derives from weights and constants only. Hand-written modules in the form
// jax.export prints (jax 0.10.2), one rule each.
#include "pallasbench/analyze/module_analysis.hpp"

#include <gtest/gtest.h>

#include "analysis_problems.hpp"
#include "parse_error.hpp"

namespace pallasbench {
namespace {
namespace movement {  // the test binary is one unity build: these helpers' names are their own

// A module whose @main takes `args` ("%arg0: tensor<8x16xf32>, ...") and returns `result`.
std::string module_with(const std::string& args, const std::string& result, const std::string& body,
                        const std::string& extra = "") {
  return "module @m {\n  func.func public @main(" + args + ") -> (" + result + ") {\n" + body + "  }\n" + extra + "}\n";
}

// A Pallas call on `operand` of type `type`, its result %k of the same type.
std::string kernel_on(const std::string& operand, const std::string& type, const std::string& name = "%k") {
  return "    " + name + " = stablehlo.custom_call @__gpu$xla.gpu.triton(" + operand +
         ") {mhlo.backend_config = {name = \"k\"}} : (" + type + ") -> " + type + "\n";
}

struct task_of {
  std::vector<std::string> inputs;
  std::set<std::string> weights;
  double bytes = 0;
  double flops = 0;
};

module_analysis analyze(const std::string& text, const task_of& task = {}) {
  module_analysis_options options;
  options.float_task = false;  // hand-written modules carry no kernel IR
  options.inputs = task.inputs;
  options.weights = task.weights;
  options.task_bytes = task.bytes;
  options.task_flops = task.flops;
  return analyze_module(text, {}, options);
}

using testing::has_problem;

std::string dump(const module_analysis& a) { return a.to_json().dump(1); }

const std::string k_x = "tensor<8x16xf32>";
const std::string k_x_arg = "%arg0: tensor<8x16xf32>";

// One op on %arg0 (8x16 f32, 512 bytes) producing %0 of `result`, after `prelude` (the
// constants it takes), then a kernel on %0.
module_analysis one_op(const std::string& op, const std::string& result, const task_of& task = {},
                       const std::string& prelude = "") {
  return analyze(
      module_with(k_x_arg, result,
                  prelude + "    %0 = " + op + "\n" + kernel_on("%0", result) + "    return %k : " + result + "\n"),
      task);
}

// ---- data-dependent addressing -----------------------------------------------------------------

const std::string k_lookup_args = "%arg0: tensor<8x16xf32>, %arg1: tensor<4xi32>";
// %arg1[0] as a scalar start, as jnp indexing lowers it.
const std::string k_id_start =
    "    %c = stablehlo.constant dense<0> : tensor<i32>\n"
    "    %0 = stablehlo.slice %arg1 [0:1] : (tensor<4xi32>) -> tensor<1xi32>\n"
    "    %1 = stablehlo.reshape %0 : (tensor<1xi32>) -> tensor<i32>\n";

TEST(DataMovement, DynamicSliceStartFromAnInputIsRefusedNamingIt) {
  const std::string text = module_with(
      k_lookup_args, "tensor<1x16xf32>",
      k_id_start +
          "    %2 = stablehlo.dynamic_slice %arg0, %1, %c, sizes = [1, 16] : (tensor<8x16xf32>, tensor<i32>, "
          "tensor<i32>) -> tensor<1x16xf32>\n" +
          kernel_on("%2", "tensor<1x16xf32>") + "    return %k : tensor<1x16xf32>\n");
  const auto a = analyze(text, {{"table", "ids"}, {"table"}, 1e6});
  ASSERT_EQ(a.data_dependent_addressing.size(), 1u) << dump(a);
  EXPECT_EQ(a.data_dependent_addressing[0],
            "stablehlo.dynamic_slice on line 6 takes its start indices from input 'ids'");
  EXPECT_TRUE(has_problem(a, "data-dependent addressing outside the Pallas kernels: stablehlo.dynamic_slice on line 6"))
      << dump(a);
  EXPECT_FALSE(a.passed());
  // Without the task's names, the argument's own.
  EXPECT_EQ(analyze(text).data_dependent_addressing[0],
            "stablehlo.dynamic_slice on line 6 takes its start indices from input '%arg1'");
}

TEST(DataMovement, DynamicSliceStartFromConstantsIsMovementNotAddressing) {
  const auto a = one_op(
      "stablehlo.dynamic_slice %arg0, %c, %c, sizes = [4, 16] : (tensor<8x16xf32>, tensor<i32>, tensor<i32>) -> "
      "tensor<4x16xf32>",
      "tensor<4x16xf32>", {{}, {}, 1024}, "    %c = stablehlo.constant dense<2> : tensor<i32>\n");
  EXPECT_TRUE(a.data_dependent_addressing.empty()) << dump(a);
  EXPECT_EQ(a.moved_bytes, 4 * 16 * 4);
  EXPECT_EQ(a.moved_ops.at("stablehlo.dynamic_slice"), 256);
}

TEST(DataMovement, AddressingIsRefusedWhateverItsSize) {
  // One float written at an id's position: far below scalar setup (64 elements), still refused.
  const std::string text = module_with(
      k_lookup_args, "tensor<4xf32>",
      k_id_start +
          "    %z = stablehlo.constant dense<0.0> : tensor<4xf32>\n"
          "    %v = stablehlo.constant dense<1.0> : tensor<1xf32>\n"
          "    %2 = stablehlo.dynamic_update_slice %z, %v, %1 : (tensor<4xf32>, tensor<1xf32>, tensor<i32>) -> "
          "tensor<4xf32>\n" +
          kernel_on("%2", "tensor<4xf32>") + "    return %k : tensor<4xf32>\n");
  const auto a = analyze(text, {{"table", "ids"}, {}, 1e6});
  ASSERT_EQ(a.data_dependent_addressing.size(), 1u) << dump(a);
  EXPECT_EQ(a.data_dependent_addressing[0],
            "stablehlo.dynamic_update_slice on line 8 takes its start indices from input 'ids'");
  EXPECT_TRUE(a.forbidden_outside.empty());  // below scalar setup: only the addressing rule sees it
}

TEST(DataMovement, GatherIndicesFromAnInputAreAddressing) {
  const std::string text = module_with(
      k_lookup_args, "tensor<2xf32>",
      "    %0 = stablehlo.slice %arg1 [0:4] : (tensor<4xi32>) -> tensor<4xi32>\n"
      "    %1 = stablehlo.reshape %0 : (tensor<4xi32>) -> tensor<2x2xi32>\n"
      "    %2 = \"stablehlo.gather\"(%arg0, %1) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], "
      "start_index_map = [0, 1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 1>}> : (tensor<8x16xf32>, "
      "tensor<2x2xi32>) -> tensor<2xf32>\n" +
          kernel_on("%2", "tensor<2xf32>") + "    return %k : tensor<2xf32>\n");
  const auto a = analyze(text, {{"x", "idx"}, {}, 1e6});
  ASSERT_EQ(a.data_dependent_addressing.size(), 1u) << dump(a);
  EXPECT_EQ(a.data_dependent_addressing[0], "stablehlo.gather on line 5 takes its indices from input 'idx'");
}

TEST(DataMovement, AddressingTaintFlowsThroughCallsKernelsAndLoops) {
  // The start reaches the dynamic_slice through a function, a Pallas kernel and a loop's
  // carried scalar that only its second iteration sets from the input (the fixed point).
  const std::string callee =
      "  func.func private @take(%arg0: tensor<8x16xf32>, %arg1: tensor<i32>) -> tensor<1x16xf32> {\n"
      "    %c = stablehlo.constant dense<0> : tensor<i32>\n"
      "    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, sizes = [1, 16] : (tensor<8x16xf32>, tensor<i32>, "
      "tensor<i32>) -> tensor<1x16xf32>\n"
      "    return %0 : tensor<1x16xf32>\n  }\n";
  const std::string via_kernel =
      module_with(k_lookup_args, "tensor<1x16xf32>",
                  k_id_start + kernel_on("%1", "tensor<i32>", "%s") +
                      "    %2 = call @take(%arg0, %s) : (tensor<8x16xf32>, tensor<i32>) -> tensor<1x16xf32>\n" +
                      kernel_on("%2", "tensor<1x16xf32>") + "    return %k : tensor<1x16xf32>\n",
                  callee);
  auto a = analyze(via_kernel, {{"table", "ids"}, {}, 1e6});
  ASSERT_EQ(a.data_dependent_addressing.size(), 1u) << dump(a);
  EXPECT_EQ(a.data_dependent_addressing[0],
            "stablehlo.dynamic_slice on line 13 takes its start indices from input 'ids'");

  const std::string via_loop = module_with(
      k_lookup_args, "tensor<1x16xf32>",
      k_id_start +
          "    %2:2 = stablehlo.while(%iterArg = %c, %iterArg_1 = %c) : tensor<i32>, tensor<i32>\n"
          "    cond {\n"
          "      %c3 = stablehlo.constant dense<3> : tensor<i32>\n"
          "      %5 = stablehlo.compare LT, %iterArg_1, %c3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
          "      stablehlo.return %5 : tensor<i1>\n"
          "    } do {\n"
          "      %c1 = stablehlo.constant dense<1> : tensor<i32>\n"
          "      %5 = stablehlo.add %iterArg_1, %c1 : tensor<i32>\n"
          "      %6 = stablehlo.dynamic_slice %arg0, %iterArg, %c, sizes = [1, 16] : (tensor<8x16xf32>, tensor<i32>, "
          "tensor<i32>) -> tensor<1x16xf32>\n"
          "      stablehlo.return %1, %5 : tensor<i32>, tensor<i32>\n"
          "    }\n"
          "    %3 = stablehlo.dynamic_slice %arg0, %c, %c, sizes = [1, 16] : (tensor<8x16xf32>, tensor<i32>, "
          "tensor<i32>) -> tensor<1x16xf32>\n" +
          kernel_on("%3", "tensor<1x16xf32>") + "    return %k : tensor<1x16xf32>\n");
  a = analyze(via_loop, {{"table", "ids"}, {}, 1e6});
  ASSERT_EQ(a.data_dependent_addressing.size(), 1u) << dump(a);
  EXPECT_EQ(a.data_dependent_addressing[0],
            "stablehlo.dynamic_slice on line 14 takes its start indices from input 'ids'");
  // The body's slice is counted once, not once per fixed-point pass: 64 + 64 bytes.
  EXPECT_EQ(a.moved_bytes, 128);
}

TEST(DataMovement, ABranchPickedByAnInputIsAddressing) {
  const std::string text =
      module_with(k_lookup_args, "tensor<5x16xf32>",
                  k_id_start +
                      "    %2 = \"stablehlo.case\"(%1) ({\n"
                      "      %9 = stablehlo.slice %arg0 [0:5, 0:16] : (tensor<8x16xf32>) -> tensor<5x16xf32>\n"
                      "      stablehlo.return %9 : tensor<5x16xf32>\n"
                      "    }, {\n"
                      "      %9 = stablehlo.slice %arg0 [3:8, 0:16] : (tensor<8x16xf32>) -> tensor<5x16xf32>\n"
                      "      stablehlo.return %9 : tensor<5x16xf32>\n"
                      "    }) : (tensor<i32>) -> tensor<5x16xf32>\n" +
                      kernel_on("%2", "tensor<5x16xf32>") + "    return %k : tensor<5x16xf32>\n");
  const auto a = analyze(text, {{"table", "ids"}, {}, 1e6});
  ASSERT_EQ(a.data_dependent_addressing.size(), 1u) << dump(a);
  EXPECT_EQ(a.data_dependent_addressing[0], "stablehlo.case on line 6 takes its branch from input 'ids'");
  EXPECT_EQ(a.moved_bytes, 320);  // the second branch's slice (the first is a prefix)
}

// ---- the bytes each movement op moves ----------------------------------------------------------

TEST(DataMovement, TransposeMovesItsResultUnlessOnlySizeOneDimsMove) {
  auto a =
      one_op("stablehlo.transpose %arg0, dims = [1, 0] : (tensor<8x16xf32>) -> tensor<16x8xf32>", "tensor<16x8xf32>");
  EXPECT_EQ(a.moved_bytes, 512);
  EXPECT_EQ(a.moved_ops.at("stablehlo.transpose"), 512);
  a = analyze(module_with("%arg0: tensor<1x16x8xf32>", "tensor<16x1x8xf32>",
                          "    %0 = stablehlo.transpose %arg0, dims = [1, 0, 2] : (tensor<1x16x8xf32>) -> "
                          "tensor<16x1x8xf32>\n" +
                              kernel_on("%0", "tensor<16x1x8xf32>") + "    return %k : tensor<16x1x8xf32>\n"));
  EXPECT_EQ(a.moved_bytes, 0) << dump(a);  // a bitcast
  a = one_op(
      "\"stablehlo.transpose\"(%arg0) <{permutation = array<i64: 1, 0>}> : (tensor<8x16xf32>) -> "
      "tensor<16x8xf32>",
      "tensor<16x8xf32>");
  EXPECT_EQ(a.moved_bytes, 512) << dump(a);  // the generic form
}

TEST(DataMovement, ReverseMovesItsResultUnlessEveryReversedDimIsOne) {
  EXPECT_EQ(one_op("stablehlo.reverse %arg0, dims = [1] : tensor<8x16xf32>", k_x).moved_bytes, 512);
  const auto a = analyze(module_with("%arg0: tensor<1x16xui8>", "tensor<1x16xui8>",
                                     "    %0 = stablehlo.reverse %arg0, dims = [0] : tensor<1x16xui8>\n" +
                                         kernel_on("%0", "tensor<1x16xui8>") + "    return %k : tensor<1x16xui8>\n"));
  EXPECT_EQ(a.moved_bytes, 0) << dump(a);
}

TEST(DataMovement, SliceIsFreeOnlyAsAPrefix) {
  EXPECT_EQ(
      one_op("stablehlo.slice %arg0 [0:4, 0:8] : (tensor<8x16xf32>) -> tensor<4x8xf32>", "tensor<4x8xf32>").moved_bytes,
      0);
  EXPECT_EQ(one_op("stablehlo.slice %arg0 [4:8, 0:16] : (tensor<8x16xf32>) -> tensor<4x16xf32>", "tensor<4x16xf32>")
                .moved_bytes,
            256);
  EXPECT_EQ(one_op("stablehlo.slice %arg0 [0:8:2, 0:16] : (tensor<8x16xf32>) -> tensor<4x16xf32>", "tensor<4x16xf32>")
                .moved_bytes,
            256);
  EXPECT_EQ(one_op("\"stablehlo.slice\"(%arg0) <{limit_indices = array<i64: 8, 16>, start_indices = array<i64: 0, 8>, "
                   "strides = array<i64: 1, 1>}> : (tensor<8x16xf32>) -> tensor<8x8xf32>",
                   "tensor<8x8xf32>")
                .moved_bytes,
            256);
}

TEST(DataMovement, PadIsFreeOnlyAtTheHighEnd) {
  const auto pad = [&](const std::string& attributes, const std::string& result) {
    return one_op("stablehlo.pad %arg0, %cst, " + attributes + " : (tensor<8x16xf32>, tensor<f32>) -> " + result,
                  result, {}, "    %cst = stablehlo.constant dense<0.0> : tensor<f32>\n")
        .moved_bytes;
  };
  EXPECT_EQ(pad("low = [0, 0], high = [8, 0], interior = [0, 0]", "tensor<16x16xf32>"), 0);
  EXPECT_EQ(pad("low = [1, 0], high = [0, 0], interior = [0, 0]", "tensor<9x16xf32>"), 512);
  EXPECT_EQ(pad("low = [0, 0], high = [0, 0], interior = [0, 1]", "tensor<8x31xf32>"), 512);
  EXPECT_EQ(pad("low = [0, -2], high = [0, 0], interior = [0, 0]", "tensor<8x14xf32>"), 512);  // a slice from the front
}

TEST(DataMovement, ConcatenateMovesEveryOperandButTheFirst) {
  EXPECT_EQ(one_op("stablehlo.concatenate %arg0, %arg0, %arg0, dim = 0 : (tensor<8x16xf32>, tensor<8x16xf32>, "
                   "tensor<8x16xf32>) -> tensor<24x16xf32>",
                   "tensor<24x16xf32>")
                .moved_bytes,
            1024);
  // Zeros after the data: padding, nothing of an input moves.
  EXPECT_EQ(one_op("stablehlo.concatenate %arg0, %z, dim = 1 : (tensor<8x16xf32>, tensor<8x16xf32>) -> "
                   "tensor<8x32xf32>",
                   "tensor<8x32xf32>", {}, "    %z = stablehlo.constant dense<0.0> : tensor<8x16xf32>\n")
                .moved_bytes,
            0);
}

TEST(DataMovement, BroadcastMovesNothingUnlessItReordersDims) {
  EXPECT_EQ(one_op("stablehlo.broadcast_in_dim %arg0, dims = [1, 2] : (tensor<8x16xf32>) -> tensor<4x8x16xf32>",
                   "tensor<4x8x16xf32>")
                .moved_bytes,
            0);
  EXPECT_EQ(one_op("stablehlo.broadcast_in_dim %arg0, dims = [1, 0] : (tensor<8x16xf32>) -> tensor<16x8xf32>",
                   "tensor<16x8xf32>")
                .moved_bytes,
            512);
}

TEST(DataMovement, BytesFollowTheElementType) {
  const auto a = analyze(module_with("%arg0: tensor<8x16xbf16>", "tensor<16x8xbf16>",
                                     "    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<8x16xbf16>) -> "
                                     "tensor<16x8xbf16>\n" +
                                         kernel_on("%0", "tensor<16x8xbf16>") + "    return %k : tensor<16x8xbf16>\n"));
  EXPECT_EQ(a.moved_bytes, 256);
  const auto b = analyze(module_with("%arg0: tensor<8x16xui8>", "tensor<8x16xui8>",
                                     "    %0 = stablehlo.reverse %arg0, dims = [1] : tensor<8x16xui8>\n" +
                                         kernel_on("%0", "tensor<8x16xui8>") + "    return %k : tensor<8x16xui8>\n"));
  EXPECT_EQ(b.moved_bytes, 128);
  const std::string unsized =
      module_with("%arg0: tensor<8x16xcustom>", "tensor<16x8xcustom>",
                  "    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<8x16xcustom>) -> tensor<16x8xcustom>\n" +
                      kernel_on("%0", "tensor<16x8xcustom>") + "    return %k : tensor<16x8xcustom>\n");
  EXPECT_EQ(testing::parse_error([](const std::string& text) { return analyze(text); }, unsized),
            "StableHLO line 3: cannot tell the size of the element type 'custom'");
}

// ---- weights, the share and its threshold ------------------------------------------------------

TEST(DataMovement, MovementOfWeightsAloneIsPacking) {
  const std::string args = "%arg0: tensor<8x16xf32>, %arg1: tensor<16x8xf32>";
  const auto with_weight = [&](const std::string& operand) {
    return module_with(args, k_x,
                       "    %0 = stablehlo.transpose " + operand +
                           ", dims = [1, 0] : (tensor<16x8xf32>) -> tensor<8x16xf32>\n"
                           "    %1 = stablehlo.add %arg0, %0 : tensor<8x16xf32>\n" +
                           kernel_on("%1", k_x) + "    return %k : tensor<8x16xf32>\n");
  };
  const task_of task{{"x", "w"}, {"w"}, 1024};
  EXPECT_EQ(analyze(with_weight("%arg1"), task).moved_bytes, 0);
  EXPECT_EQ(analyze(with_weight("%arg1"), {{"x", "w"}, {}, 1024}).moved_bytes, 512);  // w not a weight
  // Weights mixed with data are data; a kernel's result from weights alone is still packing.
  const std::string mixed =
      module_with(args, k_x,
                  "    %w = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<16x8xf32>) -> tensor<8x16xf32>\n"
                  "    %0 = stablehlo.add %arg0, %w : tensor<8x16xf32>\n"
                  "    %1 = stablehlo.transpose %0, dims = [1, 0] : (tensor<8x16xf32>) -> tensor<16x8xf32>\n" +
                      kernel_on("%arg1", "tensor<16x8xf32>", "%p") +
                      "    %2 = stablehlo.transpose %p, dims = [1, 0] : (tensor<16x8xf32>) -> tensor<8x16xf32>\n"
                      "    %3 = stablehlo.add %2, %0 : tensor<8x16xf32>\n" +
                      kernel_on("%3", k_x) + "    return %k : tensor<8x16xf32>\n");
  const auto a = analyze(mixed, task);
  EXPECT_EQ(a.moved_bytes, 512) << dump(a);  // %1 only
}

TEST(DataMovement, ShareIsOverTheTasksVolume) {
  const std::string op = "stablehlo.reverse %arg0, dims = [1] : tensor<8x16xf32>";
  // The byte model.
  auto a = one_op(op, k_x, {{}, {}, 1024});
  EXPECT_EQ(a.task_volume_bytes, 1024);
  EXPECT_DOUBLE_EQ(a.moved_share, 0.5);
  EXPECT_TRUE(
      has_problem(a, "50.0% of the task's bytes moved outside the Pallas kernels (bytes: stablehlo.reverse 512"))
      << dump(a);
  // A task that computes more than it moves: its FLOPs, one output element (4 bytes) each.
  a = one_op(op, k_x, {{}, {}, 1024, 4096});
  EXPECT_EQ(a.task_volume_bytes, 16384);
  EXPECT_DOUBLE_EQ(a.moved_share, 512.0 / 16384);
  EXPECT_TRUE(a.passed()) << dump(a);
  // No byte model at this dtype: every input read and the output written once.
  a = one_op(op, k_x);
  EXPECT_EQ(a.task_volume_bytes, 1024);
  // The threshold is the option's.
  module_analysis_options options;
  options.float_task = false;
  options.task_bytes = 1024;
  options.max_moved_share = 0.6;
  EXPECT_TRUE(
      analyze_module(module_with(k_x_arg, k_x,
                                 "    %0 = " + op + "\n" + kernel_on("%0", k_x) + "    return %k : tensor<8x16xf32>\n"),
                     {}, options)
          .passed());
}

TEST(DataMovement, MainInputsMapArgumentsToTheTasksInputs) {
  // jax.export dropped input 0 (unused): @main's only argument is the task's input 1.
  const std::string text = module_with(
      "%arg0: tensor<4xi32>", "tensor<1x16xf32>",
      "    %t = stablehlo.constant dense<1.0> : tensor<8x16xf32>\n"
      "    %c = stablehlo.constant dense<0> : tensor<i32>\n"
      "    %0 = stablehlo.slice %arg0 [0:1] : (tensor<4xi32>) -> tensor<1xi32>\n"
      "    %1 = stablehlo.reshape %0 : (tensor<1xi32>) -> tensor<i32>\n"
      "    %2 = stablehlo.dynamic_slice %t, %1, %c, sizes = [1, 16] : (tensor<8x16xf32>, tensor<i32>, tensor<i32>) -> "
      "tensor<1x16xf32>\n" +
          kernel_on("%2", "tensor<1x16xf32>") + "    return %k : tensor<1x16xf32>\n");
  module_analysis_options options;
  options.float_task = false;
  options.inputs = {"table", "ids"};
  options.main_inputs = {1};
  const auto a = analyze_module(text, {}, options);
  ASSERT_EQ(a.data_dependent_addressing.size(), 1u) << dump(a);
  EXPECT_NE(a.data_dependent_addressing[0].find("from input 'ids'"), std::string::npos);
  const auto error = [&](std::vector<std::size_t> main_inputs) {
    options.main_inputs = std::move(main_inputs);
    return testing::parse_error([&](const std::string& t) { return analyze_module(t, {}, options); }, text);
  };
  EXPECT_EQ(error({0, 1}), "StableHLO line 2: @main takes 1 arguments but 2 task inputs were kept");
  EXPECT_EQ(error({2}), "StableHLO line 2: @main's arguments are 2 of the task's 2 inputs");
}

TEST(DataMovement, RecordJson) {
  const auto j = one_op("stablehlo.reverse %arg0, dims = [1] : tensor<8x16xf32>", k_x, {{}, {}, 1024}).to_json();
  EXPECT_EQ(j.at("moved_bytes"), 512.0);
  EXPECT_EQ(j.at("moved_share"), 0.5);
  EXPECT_EQ(j.at("task_volume_bytes"), 1024.0);
  EXPECT_EQ(j.at("moved_ops"), nlohmann::json({{"stablehlo.reverse", 512.0}}));
  EXPECT_EQ(j.at("data_dependent_addressing"), nlohmann::json::array());
}

}  // namespace movement
}  // namespace
}  // namespace pallasbench
