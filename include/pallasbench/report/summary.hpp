// The run's summary: one row per record, printed by a printer chosen for the audience.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pallasbench/record/verdict.hpp"

namespace pallasbench {

struct summary_options {
  // Adds regs, spills, tensor-core, ld width, threads and smem, read from each record's
  // artifacts.summary (summarize_compiler_output, compiler_summary.hpp).
  bool show_compiler = false;
};

// The compiler columns of one record, as printed; "-" where the record has no static summary (CPU
// interpret mode, artifacts off) or the summary does not know the value.
struct compiler_cells {
  std::string registers = "-";      // the most registers per thread of the kernel's entries
  std::string spills = "-";         // "yes" | "no"
  std::string tensor_core = "-";    // "wgmma" | "mma" | "none"
  std::string load_width = "-";     // widest global load (LDG or cp.async) in bytes; "tma" for TMA loads only
  std::string threads = "-";        // threads per block; entries that differ are joined with '/'
  std::string shared_memory = "-";  // shared memory of the launch, likewise

  [[nodiscard]] static compiler_cells from_summary(const nlohmann::json& summary);
};

struct summary_row {
  std::string task;
  int level = 0;
  std::string size;  // "small", "small/bfloat16" at a low-precision dtype, ".../mosaic_gpu" on Mosaic GPU
  task_status status = task_status::harness_error;
  std::optional<bool> robust;  // robustness_passed
  std::optional<double> max_abs_error;
  std::optional<double> kernel_us;     // median
  std::optional<double> reference_us;  // median of the XLA reference
  // The record's own verdict and speedup (record_passed, record_speedup: computed once when the
  // record was made, never here). No speedup in CPU interpret mode, where the kernel runs through
  // an interpreter and no speed comparison means anything.
  bool passed = false;
  std::optional<double> speedup;
  std::string timer;
  std::string message;    // the error, for failed rows
  std::string candidate;  // a user candidate's file name ("" for the suite's own kernels)
  // A kernel that failed to lower: "backend: ...", "at: ...", "fix: ..." lines (error.lowering).
  std::vector<std::string> lowering;
  // An incorrect record's first failed case: "hint: ..." and its worst elements as a table
  // (correctness.seeds[]/stress[]: hint, worst).
  std::vector<std::string> mismatch;
  compiler_cells compiler;
  bool recorded = false;  // taken from the records file (--resume), not evaluated in this run

  // Throws std::invalid_argument for a record whose status is none of task_status's.
  [[nodiscard]] static summary_row from_record(const nlohmann::json& record);
};

// Aligned columns for a terminal, with a count of statuses at the end.
void print_table(std::ostream& out, const std::vector<summary_row>& rows, const summary_options& options = {});
// A GitHub markdown table (bench/results).
void print_markdown(std::ostream& out, const std::vector<summary_row>& rows, const summary_options& options = {});

// One line per finished task: "[3/38] softmax (small) ok  max|err| 1.2e-07  kernel 81.2 us  2.3 s",
// naming a user candidate's file after the size. A failure shows its message's first line, cut
// at a word past 100 characters; a kernel that failed to lower adds indented lines: the message
// whole, the backend and why, the candidate's line and the fixes.
[[nodiscard]] std::string progress_line(std::size_t index, std::size_t total, const summary_row& row, double seconds);

// The first line of `text`, cut at the last word boundary that keeps it within `limit`
// characters with "..." (mid-word only when a word alone is longer than half the limit).
[[nodiscard]] std::string first_line(const std::string& text, std::size_t limit);

}  // namespace pallasbench
