// Source analysis of the module the executor compiles: from its StableHLO text (what XLA
// compiles) and the Triton IR of each Pallas kernel, does the work happen inside the Pallas
// kernels, does a kernel's result reach the output, and at what precision do the kernels compute?
//
// The candidate's process produced the module but never describes it: the trusted executor
// deserializes it (jax.export), prints its StableHLO and decodes each kernel's IR from the
// custom call's backend_config. This is the pure analysis of those texts; the robustness filter
// "source_analysis" (check/filters/source_analysis.hpp) runs it and turns its problems into the verdict.
//
// Counting, outside the Pallas custom calls (everything in the StableHLO is outside them):
// - free of work: layout and bookkeeping ops (constant, reshape, broadcast_in_dim, transpose,
//   slice, dynamic_slice, pad, concatenate, reverse, iota, tuple ops, bitcast_convert,
//   optimization_barrier, returns, ...) and the Pallas custom calls themselves; the data that
//   layout ops move is counted in bytes (below);
// - scalar setup: an op that touches at most options.scalar_setup_elements elements (its
//   results, and for reductions and contractions also its data operands: a full reduction to
//   a scalar is work, not setup) is neither counted nor forbidden;
// - work: elementwise (and any op not named here) its result elements; reduce and reduce_window
//   the elements of the reduced operands (not the init values); dot_general 2 * result elements *
//   the product of the lhs contracting dims; dot 2 * result * lhs's last dim; convolution
//   2 * result * (kernel elements / output features);
// - forbidden when above scalar setup: contractions, gathers/scatters, dynamic_update_slice,
//   sort, fft, linear algebra, reduce_window, select_and_scatter, random numbers, convert and
//   reduce_precision (a cast outside the kernel is a precision route), collectives and I/O;
// - any custom call that is not a Pallas target is refused (host callbacks, foreign kernels);
// - a while loop carrying a tensor above scalar setup is refused (its body is counted once);
// - case/if: every branch is counted; func.call and composite count the callee per call site.
//
// Dataflow: a value depends on a kernel if it is a Pallas custom call's result, or an operand of
// its op does, or (region ops) a value its regions return does; a case/if result only if the
// value every branch returns does (a kernel behind a data-dependent branch proves nothing); a
// while result if its initial value or the body's returned value does (to a fixed point); calls
// through the callee's returns. output_from_kernel: every result of @main depends on a kernel.
//
// outside_share = outside_work / max(task_flops, outside_work + kernel_output_elements):
// the outside work over the task's FLOP model, and never over less than the work the module
// certainly does (what XLA does outside plus one operation per element the kernels write), so a
// task whose FLOP model is 0 or too small still gets a share at most 1. 0 when both are 0.
//
// Data movement (detail/data_movement.cpp, detail/movement_ops.cpp). Each value carries the set
// of @main arguments it derives from: an op's results derive from all its operands (a Pallas
// call's too) and from what its regions return; a case/if's from its selector and every
// branch; a while's from its initial values, the body's returns and the condition, to a fixed
// point; a call's through the callee, per pattern of argument sets. @main's arguments are the
// task's inputs (options.main_inputs says which: jax.export drops unused ones).
// - data-dependent addressing is refused at any size: a dynamic_slice, real_dynamic_slice or
//   dynamic_update_slice whose start indices, a gather or scatter whose indices, or a case/if
//   returning more than scalar setup whose selector derives from an input (through kernels
//   too): the addressing of a gather is the kernel's work;
// - moved bytes: the bytes of the elements a movement op puts at another multi-index than they
//   had, at its result's element type: transpose its result unless only size-1 dims move (a
//   bitcast); reverse its result unless every reversed dim has size 1; slice 0 for a prefix
//   (starts 0, strides 1: undoing padding), else its result; pad 0 when the low and interior
//   paddings are 0 (padding at the high end, to a block multiple), else its operand;
//   concatenate every operand after a non-empty one along the dim; dynamic_slice and
//   real_dynamic_slice (starts not from inputs) their result; broadcast_in_dim its result when
//   it reorders the operand's dims of size > 1. reshape (row-major order kept), a broadcast in
//   order (it replicates an element at new indices, but every copy keeps the element's own
//   position along the operand's dims: an open edge, see docs/filters.md), bitcast_convert,
//   iota and constant move nothing;
// - only data derived from an input that is not a weight counts (options.weights: a weight is
//   laid out once, offline, in deployment; weights mixed with other inputs are data);
// - moved_share = moved_bytes / task_volume_bytes, task_volume_bytes = max(the byte model
//   (options.task_bytes; without one at this dtype, @main's arguments and results once),
//   task_flops * options.flop_element_bytes): a data-movement task's volume is its bytes, a
//   compute-defined task's its FLOPs, each an operation on one output element. A share over
//   options.max_moved_share is a problem.
#pragma once

#include <array>
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "pallasbench/analyze/stablehlo_text.hpp"
#include "pallasbench/suite/backend.hpp"

namespace pallasbench {

// Custom-call targets that carry Pallas kernels: Triton and Mosaic GPU.
inline constexpr std::array<std::string_view, 3> k_pallas_targets = {"__gpu$xla.gpu.triton", "triton_kernel_call_ffi",
                                                                     "mosaic_gpu_v2"};

// The Pallas backend a custom-call target belongs to; none for any other target.
[[nodiscard]] std::optional<kernel_backend> backend_of_target(std::string_view target);

// One Pallas custom call's kernel, as the executor decoded it (program order).
struct kernel_ir {
  std::string target;        // call_target_name
  std::string name;          // kernel name (may be empty)
  std::string ir;            // MLIR text of the kernel's module (Triton: tt.func); empty when not decoded
  std::string decode_error;  // why ir is empty
};

struct module_analysis_options {
  bool float_task = true;  // the task's output is a float type: the precision policy applies
  // The IR type of the task's float dtype ("f32", "bf16", "f16"): a less precise type in a kernel
  // is a precision downgrade.
  std::string task_float = "f32";
  bool allow_tf32 = false;  // the task declares USES_TF32
  double task_flops = 0;    // the task's FLOP model at this size (denominator of the outside share)
  // The filter passes thresholds::max_outside_work and thresholds::scalar_setup_elements
  // (check/filters/source_analysis.hpp); the defaults here are their values.
  double max_outside_share = 0.05;    // a larger outside_share is a problem
  double scalar_setup_elements = 64;  // an op touching at most this many elements is setup
  // Data movement (see the top of this file). The task's input names in order and those that are
  // weights; per @main argument the task input it is (jax.export drops unused inputs:
  // Exported.module_kept_var_idx). Empty main_inputs: @main's arguments are the inputs in order;
  // empty inputs: the arguments go by their %names, none a weight.
  std::vector<std::string> inputs;
  std::set<std::string> weights;
  std::vector<std::size_t> main_inputs;
  double task_bytes = 0;          // the task's byte model at this size and dtype; 0: none
  double flop_element_bytes = 4;  // bytes of one element of the task's output type
  // The filter passes thresholds::max_moved_share (check/filters/source_analysis.hpp).
  double max_moved_share = 0.25;  // a larger moved_share is a problem
};

struct precision_report {
  std::set<std::string> float_types;     // float element types in the kernels' IR (f32, f16, bf16, f8E4M3FN, ...)
  std::set<std::string> dot_precisions;  // tt.dot inputPrecision values ("default" when absent: Triton's IEEE)
  // Some dot rounds its f32 operands to TF32 (inputPrecision tf32, or bf16x3, which is no more
  // accurate) or the IR holds tf32 values. tf32x3 and bf16x6 are about f32-accurate: not TF32.
  bool tf32 = false;
  std::vector<std::string> downgrades;  // "kernel 'x': arith.truncf f32 -> bf16" (float tasks only)
  // Why the kernels compute below the task's precision class (the downgrades, and TF32 dots in a
  // task that does not declare USES_TF32): not a refusal, but every case of such a kernel is
  // judged by the platform's bound alone (check/platform.hpp).
  std::vector<std::string> below_class;
  std::vector<std::string> unreadable;  // kernels whose IR is missing (fail closed for float tasks)
  std::vector<std::string> problems;    // the precision policy's reasons to refuse, in kernel order
  [[nodiscard]] nlohmann::json to_json() const;
};

struct module_analysis {
  std::size_t pallas_calls = 0;                   // Pallas custom calls reached from @main, times call multiplicity
  std::vector<std::string> refused_custom_calls;  // every other custom_call target (host callbacks among them)
  double outside_work = 0;                        // element operations outside the Pallas custom calls
  double kernel_output_elements = 0;              // elements the Pallas custom calls return (same multiplicity)
  double outside_share = 0;                       // see the top of this file
  std::set<std::string> outside_ops;              // op names that contributed outside work
  std::vector<std::string> forbidden_outside;     // "stablehlo.dot_general outside the Pallas kernels (65536 elements)"
  std::vector<std::string> outside_loops;         // while loops that carry tensor data
  // "stablehlo.dynamic_slice on line 12 takes its start indices from input 'ids'"
  std::vector<std::string> data_dependent_addressing;
  double moved_bytes = 0;                   // bytes moved outside the kernels (see the top of this file)
  double task_volume_bytes = 0;             // the denominator of moved_share
  double moved_share = 0;                   // moved_bytes / task_volume_bytes
  std::map<std::string, double> moved_ops;  // op name -> the bytes it moved
  bool output_from_kernel = false;          // every result of @main depends on some Pallas custom call result
  std::vector<std::string> problems;        // every reason to refuse, human-readable (all of the above)
  std::set<std::string> backends;           // the kernels' Pallas backends ("mosaic_gpu", "triton")
  precision_report precision;
  // The threshold of the share is options.max_outside_share, applied when problems were listed.
  [[nodiscard]] bool passed() const { return problems.empty(); }
  [[nodiscard]] nlohmann::json to_json() const;
};

// Reads the module (strip_locations, then parse_stablehlo) and the kernels' IR (module_analysis.cpp,
// kernel_precision.cpp). Problems, in order: no Pallas call; refused custom calls; forbidden ops;
// data-dependent addressing; loops; no kernel result reaching the output; the outside share over
// options.max_outside_share; the moved share over options.max_moved_share; then per kernel its
// unreadable IR; last, fewer kernel IRs than Pallas custom calls in the module (float tasks).
// Precision downgrades and TF32 where the task does not allow it are not problems:
// precision.below_class lists them, and the checks judge such a kernel by the platform's bound on
// every case (check/platform.hpp). Throws
// module_parse_error on text it cannot parse and on a module it cannot follow (no @main, a call to
// an undefined function, recursion, a use of an undefined value, an element type it cannot size,
// @main's arguments not matching options.main_inputs and options.inputs).
[[nodiscard]] module_analysis analyze_module(std::string_view stablehlo, const std::vector<kernel_ir>& kernels,
                                             const module_analysis_options& options);

// The precision part alone (also run by analyze_module).
[[nodiscard]] precision_report analyze_kernel_precision(const std::vector<kernel_ir>& kernels,
                                                        const module_analysis_options& options);

}  // namespace pallasbench
