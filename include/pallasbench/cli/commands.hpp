// The CLI's commands; main.cpp only parses flags into these options.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pallasbench/core/enum_names.hpp"
#include "pallasbench/orchestrate/evaluator.hpp"
#include "pallasbench/report/live_progress.hpp"
#include "pallasbench/report/printer.hpp"

namespace pallasbench {

// Bad input from the user: exit code 2 with this message.
class usage_error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

namespace exit_code {
inline constexpr int ok = 0;
inline constexpr int check_failed = 1;  // a task or candidate failed a check
inline constexpr int usage = 2;
inline constexpr int harness = 3;  // the harness could not evaluate (reference or worker setup failed)
inline constexpr int interrupted = 130;
}  // namespace exit_code

struct selection_options {
  std::vector<std::string> tasks;
  std::optional<int> level;
  std::string category;
};

inline constexpr std::int64_t k_default_max_source_bytes = 1 << 20;

struct evaluation_flags {
  problem_size size = problem_size::small;
  float_dtype dtype = float_dtype::float32;  // every float input and output at this dtype
  // A sweep (--size small,medium --dtype float32,bfloat16): every task at each size and dtype, one
  // job each; `size` and `dtype` are the first. Empty: `size` and `dtype` alone.
  std::vector<problem_size> sizes;
  std::vector<float_dtype> dtypes;
  backend_choice backend = backend_choice::preferred;  // which implementations of the suite's tasks
  device_choice device = device_choice::automatic;
  std::string out;
  int seeds = 3;
  std::optional<std::uint64_t> seed;  // --seed: reproduce; none: OS entropy per evaluation
  std::string ceilings_file;          // --ceilings: the floor's ceilings from a file
  double timeout_s = 300;             // every wait on a worker (run_plan.hpp's timeouts)
  bool resume = false;
  bool wait_lock = false;  // queue behind another writer of the records file instead of stopping
  std::int64_t max_source_bytes = k_default_max_source_bytes;  // larger candidates are refused unread
  bool timing = true;
  double max_noise = stdrel_options{}.max_noise;          // relative noise (stdev / mean) that ends sampling
  double max_median_ci = stdrel_options{}.max_median_ci;  // or the median's 95% interval, relative; 0: off
  std::optional<double> timing_budget_s;                  // per series; default timing_options::default_budget_s
  artifact_mode artifacts = artifact_options{}.mode;
  bool pass_trail = false;          // also the Triton pass trail (megabytes per kernel)
  std::optional<shard_spec> shard;  // --shard I/N: this machine's share of the work (docs/cluster.md)
  std::size_t jobs = 0;             // lanes evaluating at once; 0: the host's cores less one
  double memory_gib = -1;  // host memory the evaluations in flight may hold; <0: 85% of the available, 0: no limit
  // Each process's share of it (memory_limits.hpp); none: derived from the budget and the lanes.
  std::optional<double> tracer_memory_gib;  // --tracer-memory: a tracer's, its tmpfs included
  std::optional<double> tracer_tmpfs_mib;   // --tracer-tmpfs: its private /tmp and /dev/shm, each
  std::optional<double> worker_memory_gib;  // --worker-memory: each executor's and reference's (0: none)
  std::optional<double> device_share;       // --device-share: each executor's and reference's part of its GPU
  double artifacts_timeout_s = 60;          // --artifacts-timeout: the wait for the compiler-artifact capture
  std::string gpus = "all";                 // the GPUs the lanes are spread over: "all" or indices "0,1"
  std::string compile_cache;                // --compile-cache: JAX's persistent compilation cache; empty: cold compiles
  progress_mode progress = progress_mode::automatic;  // a live line on a terminal, plain lines elsewhere
  std::string trace_file;                             // --trace: the run's timeline (Chrome trace events); empty: none
};

// `list`: a table, JSON, or the suite's specification as markdown (docs/tasks.md, made by
// pallasbench.tools.task_docs from the task files).
enum class list_format { table, json, markdown };

template <>
struct enum_names<list_format> {
  static constexpr std::string_view what = "list format";
  static constexpr std::array entries{
      std::pair{list_format::table, std::string_view("table")},
      std::pair{list_format::json, std::string_view("json")},
      std::pair{list_format::markdown, std::string_view("markdown")},
  };
};

struct list_options {
  selection_options selection;
  list_format format = list_format::table;
};

struct run_options {
  selection_options selection;
  evaluation_flags flags;
  summary_format format = summary_format::table;
  summary_options summary;
};

struct eval_options {
  std::string task;                     // with candidates
  std::vector<std::string> candidates;  // each against `task`, one tracer each, in parallel lanes
  std::string batch;                    // or a JSONL file of requests {id, task, size, source | path}
  evaluation_flags flags;
  bool json = false;
};

struct report_options {
  std::vector<std::string> records;  // run folders or records files (gzipped or not); every record a row
  summary_format format = summary_format::table;
  summary_options summary;
  std::string html;  // set: write one self-contained HTML page here instead (pallasbench.tools.html_report)
};

// `export DIR... --to FOLDER`: the records as a dataset folder (pallasbench.tools.export).
struct export_options {
  std::vector<std::string> inputs;  // run folders or records files
  std::string to;
  std::string format = "jsonl";  // jsonl or parquet
};

// `merge OUT DIR...`: the shards' records (and artifact files) unioned into OUT/records.jsonl.
struct merge_options {
  std::string out;
  std::vector<std::string> inputs;  // folders holding records.jsonl (or records files themselves)
};

// `compare BASE NEW`: two runs' records joined row by row (report/compare.hpp).
// `compare BASE NEW` (records) or `compare --task T A.py [B.py]` (one run evaluating both).
struct compare_options {
  // Records: a records file or a run folder holding records.jsonl, or several comma-separated (the
  // side's repetitions). With --task: a candidate file (alone: NEW, against the suite's kernel).
  std::string base;
  std::string next;         // likewise, NEW; with --task, may be empty
  double threshold = 0.02;  // relative change of the medians a speed verdict must exceed
  double alpha = 0.05;      // the U test's p-value a speed verdict must be below (two runs a side or more)
  // Records: the runs each side must have (0: any). --task: the evaluations of each side.
  int repetitions = 0;
  std::string task;  // set: evaluate BASE and NEW on this task in one run, alternating
  evaluation_flags flags;
  bool json = false;
  std::string html;  // set: also write the comparison as an HTML page here (pallasbench.tools.compare_html)
};

// compare --task's evaluations of each side when --repetitions is not given: five runs a side can
// show p < 0.01 (2/252 at best); compare.py recommends nine.
inline constexpr int k_default_task_repetitions = 5;

struct artifacts_options {
  std::string task;
  problem_size size = problem_size::small;
  device_choice device = device_choice::automatic;
  std::string dot;  // write Graphviz here ("-" for stdout); empty: print the DAG as JSON
};

// `filters`: every registered robustness filter's description, in one of three forms.
enum class listing_format { text, json, markdown };

template <>
struct enum_names<listing_format> {
  static constexpr std::string_view what = "format";
  static constexpr std::array entries{
      std::pair{listing_format::text, std::string_view("text")},
      std::pair{listing_format::json, std::string_view("json")},
      std::pair{listing_format::markdown, std::string_view("markdown")},
  };
};

struct filters_options {
  listing_format format = listing_format::text;
};

int list_command(const list_options& options);
int filters_command(const filters_options& options);
int artifacts_command(const artifacts_options& options);
int run_command(const run_options& options);
int eval_command(const eval_options& options);
int report_command(const report_options& options);
[[noreturn]] int export_command(const export_options& options);
int merge_command(const merge_options& options);
// Exit 1 when a row is SLOWER or BROKE, else 0; unreadable inputs are usage errors (exit 2).
int compare_command(const compare_options& options);

}  // namespace pallasbench
