// A static summary of what the compiler made of one kernel, read from real compiler output:
// XLA's PTX of the jitted module, ptxas's resource report (`ptxas -v`), the SASS (`cuobjdump -sass`)
// and XLA's thunk sequence. A module holds XLA's own kernels (fusions, copies) next to the Pallas
// kernel's entry points, so every parser keeps functions apart by name and the summary covers only
// the kernel's own entries. The parsers: ptxas_report.hpp, sass_listing.hpp, ptx_entries.hpp,
// thunk_sequence.hpp.
//
// summarize_compiler_output() returns (every key always present; null = unknown, never a guess;
// values from the matmul of tests/fixtures/compiler/h200_2026-11-30, docs/compiler.md reads them):
//
// {
//   "summary_version": 1,
//   "selected_by": "given" | "thunk_sequence",  // where the kernel names came from
//   "sass_arch": "sm_90a" | null,               // "code for sm_XX" of the SASS
//   "kernels": [{                               // one per kernel entry point, in selection order
//     "name": "_body",
//     // from the thunk sequence (the launch XLA makes):
//     "thunk_kind": "kCustomKernel",           // kCustomKernel: Pallas/Triton; kKernel: XLA's own
//     "launches": 1,                           // thunks launching this entry (the first gives the rest)
//     "grid": [256, 1, 1], "threads": [128, 1, 1], "threads_per_block": 128,
//     "cluster": [x, y, z] | null,             // null: no cluster launch (or not printed)
//     "shared_memory_bytes": 57344,            // shared memory requested at launch (dynamic)
//     // from the ptxas report (per thread unless said otherwise):
//     "registers": 95, "barriers": 1,
//     "stack_frame_bytes": 0, "spill_store_bytes": 0, "spill_load_bytes": 0,
//     "uses_local_memory": false,              // stack frame or spills above 0
//     "static_shared_memory_bytes": null,      // "N bytes smem"; null where ptxas did not print it
//     "constant_memory_bytes": {"0": 388} | null,  // "N bytes cmem[bank]"; CUDA 13 prints none
//     // from the SASS (static instruction counts; NOP padding and @!PT-guarded fillers excluded):
//     "instructions": 514,
//     "tensor_core": "wgmma" | "mma" | "none",  // HGMMA/QGMMA/IGMMA -> wgmma, HMMA/IMMA/DMMA -> mma
//     "tensor_core_instructions": {"HGMMA.64x64x8.F32.TF32": 4},  // opcode with modifiers, as seen
//     "global_loads": {},                      // LDG by bytes per thread: 1, 2, 4, 8 (.64), 16 (.128)
//     "global_stores": {"16": 8},              // STG, same widths
//     "async_copies": {"16": 32},              // LDGSTS (cp.async global -> shared) by bytes
//     "widest_global_load_bytes": 16 | null,   // widest LDG or LDGSTS; null: none (TMA only, or none)
//     "tma_loads": 0, "tma_stores": 0,         // UTMALDG / UTMASTG (cp.async.bulk.tensor)
//     "shared_loads": {"16": 12}, "shared_stores": {"4": 16, "16": 8},  // LDS / STS by bytes
//     "ldmatrix": 4,                           // LDSM
//     "local_loads": 0, "local_stores": 0,     // LDL / STL: spills and stack arrays
//     "ffma": 0, "fmul": 0, "fadd": 0,         // FFMA/FMUL/FADD with any modifiers (.SAT, .RM, 32I)
//     "special_functions": {"MUFU.RCP": 1},    // MUFU by function: "MUFU.EX2", "MUFU.RSQ", ...
//     // from the PTX (the cross-check of the SASS) or null without PTX or entry:
//     "ptx": {"reqntid": [128, 1, 1] | null, "maxntid": [x, y, z] | null,
//             "global_loads": {}, "global_stores": {"16": 8}, "async_copies": {"16": 32},
//             "tma_loads": 0, "tma_stores": 0, "tensor_core": "wgmma",
//             "tensor_core_instructions": {"wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32": 4},
//             "special_functions": {}},   // by PTX name: ex2, lg2, rsqrt, sqrt, rcp, sin, cos, tanh
//     "missing": {}                            // artifact -> why its fields are null, e.g.
//                                              // {"ptxas": "no ptxas report captured"}
//   }],
//   "tensor_core": "wgmma" | "mma" | "none" | null,  // the strongest over the kernels; null: no SASS
//   "max_registers": 95 | null,
//   "spills": false | true | null,             // null: some kernel's report is missing, none spills
//   "missing": {}                    // artifact-level reasons: {"ptx": "no PTX captured", "kernels": ...}
// }
//
// Malformed input (a line a parser recognises but cannot read, an instruction outside a function,
// an unterminated entry, a function listed twice) throws std::runtime_error naming the artifact and
// the line.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pallasbench {

// The texts of one compiled module; an absent or empty text leaves its fields null with a reason.
struct compiler_texts {
  std::optional<std::string> ptx;             // XLA's PTX of the module
  std::optional<std::string> ptxas_report;    // stdout+stderr of `ptxas -v`
  std::optional<std::string> sass;            // `cuobjdump -sass` of the cubin
  std::optional<std::string> thunk_sequence;  // XLA's *.thunk_sequence.txt dump
};

// kernel_names: the kernel's own entry points; nullopt takes the kCustomKernel launches of the
// thunk sequence (Pallas/Triton kernels), never XLA's own kernels.
[[nodiscard]] nlohmann::json summarize_compiler_output(
    const compiler_texts& texts, const std::optional<std::vector<std::string>>& kernel_names = std::nullopt);

// Reads kernel.ptx, ptxas.txt, kernel.sass and thunk_sequence.txt of a folder (the capture's
// layout); files that do not exist stay nullopt.
[[nodiscard]] compiler_texts read_compiler_texts(const std::filesystem::path& folder);

}  // namespace pallasbench
