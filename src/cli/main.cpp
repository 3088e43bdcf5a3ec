// pallasbench: evaluate JAX Pallas GPU kernels (correctness, timing, compiler artifacts).
#include <algorithm>
#include <csignal>
#include <iostream>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include "pallasbench/cli/commands.hpp"
#include "pallasbench/record/jsonl.hpp"

namespace {

// An option naming one of an enum's values (core/enum_names.hpp), its choices in the help.
template <class E>
CLI::Option* add_choice(CLI::App* cmd, const std::string& name, E& target, const std::string& help) {
  return cmd
      ->add_option_function<std::string>(
          name, [&target](const std::string& value) { target = pallasbench::parse_enum<E>(value); }, help)
      ->check(CLI::IsMember(pallasbench::names_of<E>()))
      ->default_str(std::string(pallasbench::to_string(target)));
}

// A list of an enum's values, comma-separated ("small,medium"): a sweep. `first` gets the first
// value (what a single-valued option sets), `all` every one, duplicates dropped.
template <class E>
CLI::Option* add_choices(CLI::App* cmd, const std::string& name, E& first, std::vector<E>& all,
                         const std::string& help) {
  return cmd
      ->add_option_function<std::string>(
          name,
          [&first, &all, name](const std::string& value) {
            all.clear();
            std::string_view rest = value;
            while (true) {
              const auto comma = rest.find(',');
              const auto part = rest.substr(0, comma);
              try {
                const auto parsed = pallasbench::parse_enum<E>(part);
                if (std::find(all.begin(), all.end(), parsed) == all.end()) all.push_back(parsed);
              } catch (const std::invalid_argument& e) {
                throw CLI::ValidationError(name, e.what());
              }
              if (comma == std::string_view::npos) break;
              rest.remove_prefix(comma + 1);
            }
            first = all.front();
          },
          help + fmt::format(" (one of {}; several, comma-separated, sweep: an evaluation at each)",
                             fmt::join(pallasbench::names_of<E>(), ", ")))
      ->default_str(std::string(pallasbench::to_string(first)));
}

void add_selection(CLI::App* cmd, pallasbench::selection_options& sel) {
  cmd->add_option("--level", sel.level, "only tasks of this level")->check(CLI::Range(1, 3));
  cmd->add_option("--category", sel.category, "only tasks of this category");
}

void add_evaluation(CLI::App* cmd, pallasbench::evaluation_flags& flags) {
  add_choices(cmd, "--size", flags.size, flags.sizes, "problem size");
  add_choices(
      cmd, "--dtype", flags.dtype, flags.dtypes,
      "every float input and output at this dtype (inputs drawn at float32 and rounded; the reference in "
      "float64, rounded; tolerance by dtype, or 4x XLA's own error at the dtype: docs/dtypes.md); integer inputs keep "
      "their types");
  add_choice(cmd, "--backend", flags.backend,
             "which implementation of each suite task: preferred (Mosaic GPU where the task has one, else "
             "Triton), mosaic or triton (tasks without one are left out), all (every implementation, side by "
             "side); a candidate is what its module holds");
  add_choice(cmd, "--device", flags.device, "auto: the GPU when JAX sees one, else the CPU in Pallas interpret mode");
  cmd->add_option("--out", flags.out, "folder for records.jsonl (run: default results/<UTC timestamp>)");
  cmd->add_option("--seeds", flags.seeds, "input seeds checked (fresh inputs each; at least 3)")->capture_default_str();
  cmd->add_option("--seed", flags.seed,
                  "every evaluation's seed, to reproduce a record (its `seed`); default: a fresh one from OS "
                  "entropy per evaluation. A known seed makes the inputs predictable: never rank with it");
  cmd->add_option("--ceilings", flags.ceilings_file,
                  "device ceilings for the roofline floor and figures (JSON: copy.gbps, matmul_*.tflops, l2_bytes; "
                  "a record's environment.gpu.ceilings), instead of measuring them")
      ->check(CLI::ExistingFile);
  cmd->add_option("--max-source-bytes", flags.max_source_bytes,
                  "candidate files larger than this are refused unread (status compile_error)")
      ->capture_default_str();
  cmd->add_option("--timeout", flags.timeout_s,
                  "seconds allowed to each wait on a worker (load+compile, each run, each timing batch; a worker's "
                  "start waits at least 60 s)")
      ->capture_default_str();
  cmd->add_flag("--resume", flags.resume,
                "do not evaluate again the tasks recorded in --out with the same configuration: their records "
                "count (summary, exit status) as they stand");
  cmd->add_flag("--wait-lock", flags.wait_lock,
                "when another pallasbench writes the same records file, wait for it instead of stopping (exit 2)");
  cmd->add_flag("!--no-timing", flags.timing,
                "skip the timing of correct kernels (CUPTI device time on the GPU, the wall clock on the CPU)");
  cmd->add_option("--max-median-ci", flags.max_median_ci,
                  "or once the median's 95% interval is within +- this fraction of it (0: off, the noise rule "
                  "alone)")
      ->capture_default_str();
  cmd->add_option("--max-noise", flags.max_noise, "timing stops once stdev/mean of the samples is this low")
      ->capture_default_str();
  add_choice(cmd, "--artifacts", flags.artifacts,
             "compiler artifacts (GPU): inline keeps PTX/SASS in the record, files writes them beside "
             "records.jsonl, none skips the capture; the summary and Triton IR are always inline");
  cmd->add_flag("--pass-trail", flags.pass_trail, "also capture the Triton pass trail (TTIR -> TTGIR -> LLVM)");
  cmd->add_option("--jobs,-j", flags.jobs,
                  "evaluations at once, each in a lane of its own (reference, executor, tracer); timed series "
                  "never overlap on a device (default 0: the host's cores less one)")
      ->capture_default_str();
  cmd->add_option("--host-memory", flags.memory_gib,
                  "GiB of host memory the evaluations in flight may hold together, by their estimates (8 bytes a "
                  "byte of the task's byte model): a lane waits for a job that fits (default: 85% of what "
                  "/proc/meminfo calls available when the run starts; 0: no limit). At each job the "
                  "estimates must also fit in what is available then, less what the budget left out")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--tracer-memory", flags.tracer_memory_gib,
                  "GiB a candidate's tracer may hold, its private /tmp and /dev/shm included (a cgroup's "
                  "memory.max where one is delegated to the harness, else RLIMIT_DATA less the tmpfs); the "
                  "job board counts it beside each job's estimate (default: a quarter of a lane's share of the "
                  "budget, 1.5 GiB, 32 MiB a core and the tmpfs at least, 8 GiB at most)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--tracer-tmpfs", flags.tracer_tmpfs_mib,
                  "MiB of the tracer's private /tmp, and of its /dev/shm (tmpfs: memory, part of its share); a "
                  "candidate that fills them gets ENOSPC (default 256)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--worker-memory", flags.worker_memory_gib,
                  "GiB each lane's executor and reference may hold (a cgroup's memory.max, else RLIMIT_DATA; "
                  "default: the budget less one tracer's share; 0: no limit)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--device-share", flags.device_share,
                  "the part of its GPU each lane's executor and reference may take (XLA's allocator limit, "
                  "XLA_PYTHON_CLIENT_MEM_FRACTION; default: 0.75 split evenly over the processes on the GPU). "
                  "A device out-of-memory is retried with the device to the lane alone, then is the "
                  "candidate's only when its module needs more than this share");
  cmd->add_option("--artifacts-timeout", flags.artifacts_timeout_s,
                  "seconds the harness waits for the compiler-artifact capture after the checks (never more than "
                  "--timeout): past it the artifacts are recorded unavailable and the candidate is timed as it is")
      ->capture_default_str();
  cmd->add_option("--gpus", flags.gpus,
                  "the GPUs the lanes are spread over, round robin: all, or indices such as 0,1 (counted in "
                  "CUDA_VISIBLE_DEVICES when it is set)")
      ->capture_default_str();
  cmd->add_option_function<std::string>(
         "--shard",
         [&flags](const std::string& text) {
           try {
             flags.shard = pallasbench::shard_spec::parse(text);
           } catch (const std::invalid_argument& e) {
             throw CLI::ValidationError(fmt::format("--shard {}", e.what()));
           }
         },
         "evaluate only shard I of N (1 <= I <= N) of the work: each (task, size, dtype, candidate) falls to one "
         "shard by its hash; records say which (`shard`). `pallasbench merge` unions the shards (docs/cluster.md)")
      ->type_name("I/N");
  cmd->add_option("--compile-cache", flags.compile_cache,
                  "JAX's persistent compilation cache in this folder (created if missing; the trusted executor "
                  "and reference only): repeated compiles load from it, and each record says whether its compile "
                  "hit (compile.cache). Default: none, every compile is cold");
  cmd->add_option("--trace", flags.trace_file,
                  "write the run's timeline here (Chrome trace events; open in ui.perfetto.dev): the setup's "
                  "steps, and each lane's evaluations with their phases (docs/architecture.md)")
      ->type_name("FILE");
  add_choice(cmd, "--progress", flags.progress,
             "auto: a live status line (lanes' tasks and phases, elapsed, ETA) below the task lines when "
             "the progress goes to a terminal, plain lines otherwise; live or plain force either");
  cmd->add_option("--timing-budget", flags.timing_budget_s,
                  "seconds of samples per timed series before sampling stops unconverged (default 2 on the GPU, "
                  "0.5 on the CPU)");
}

void add_show_compiler(CLI::App* cmd, pallasbench::summary_options& summary) {
  cmd->add_flag("--show-compiler", summary.show_compiler,
                "add the compiler's static summary to the table: regs, spills, tensor-core, ld width, threads, smem");
}

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);  // a dead worker's pipe must be an error, not our death
  std::signal(SIGXFSZ, SIG_IGN);  // a file size limit must fail the write (EFBIG), not kill the run
  CLI::App app{"pallasbench: evaluate JAX Pallas GPU kernels against the suite's tasks"};
  app.require_subcommand(1);

  pallasbench::list_options list;
  auto* list_cmd = app.add_subcommand("list", "list the tasks with level, category and sizes");
  add_selection(list_cmd, list.selection);
  auto* format_option = add_choice(list_cmd, "--format", list.format,
                                   "table; json; or markdown: each task's inputs, shapes, reference, tolerance, "
                                   "stress cases and FLOP/byte models, as docs/tasks.md holds them");
  list_cmd
      ->add_flag_callback(
          "--json", [&list] { list.format = pallasbench::list_format::json; }, "print JSON (--format json)")
      ->excludes(format_option);

  pallasbench::filters_options filters;
  auto* filters_cmd = app.add_subcommand(
      "filters", "list the robustness filters: what each checks, and how its value must compare with its threshold");
  add_choice(filters_cmd, "--format", filters.format,
             "text; json (the registry as data: name, checks, direction, threshold, threshold_varies_with); "
             "markdown (docs/filters.md's table)");

  pallasbench::run_options run;
  auto* run_cmd = app.add_subcommand("run", "evaluate the suite's own kernels and record the results");
  run_cmd->add_option("tasks", run.selection.tasks, "task names (default: all selected by --level/--category)");
  add_selection(run_cmd, run.selection);
  add_evaluation(run_cmd, run.flags);
  add_choice(run_cmd, "--summary", run.format, "summary format");
  add_show_compiler(run_cmd, run.summary);

  pallasbench::eval_options eval;
  auto* eval_cmd = app.add_subcommand(
      "eval",
      "evaluate a candidate kernel file against a task; exit 0 correct, 1 fails a check, 2 usage error, "
      "3 harness error");
  eval_cmd->add_option("--task", eval.task, "task name (with --candidate/--candidates)");
  eval_cmd->add_option("--candidate,--candidates", eval.candidates,
                       "Python files defining kernel(*inputs), each evaluated against --task (in parallel lanes)");
  eval_cmd->add_option(
      "--batch", eval.batch,
      "JSONL of requests, one a line: {\"id\", \"task\", \"size\" and \"dtype\" (optional), \"source\" or "
      "\"path\"}; records come as each is done, with its id ('-': standard input)");
  add_evaluation(eval_cmd, eval.flags);
  eval_cmd->add_flag("--json", eval.json, "print the record as JSON on stdout");
  eval_cmd->footer(
      "Writing a candidate (the contract: kernel(*inputs) with the task's inputs in order, what is checked) and a "
      "kernel that passes for each backend (plgpu.kernel on Mosaic GPU, pl.pallas_call on Triton): "
      "docs/writing_candidates.md");

  pallasbench::artifacts_options artifacts;
  auto* artifacts_cmd =
      app.add_subcommand("artifacts", "a task kernel's jaxpr as a graph (JSON, or Graphviz with --dot)");
  artifacts_cmd->add_option("task", artifacts.task, "task name")->required();
  add_choice(artifacts_cmd, "--size", artifacts.size, "problem size");
  add_choice(artifacts_cmd, "--device", artifacts.device, "auto, gpu or cpu");
  artifacts_cmd->add_option("--dot", artifacts.dot, "write Graphviz DOT to this file ('-': stdout)");

  pallasbench::report_options report;
  auto* report_cmd = app.add_subcommand("report",
                                        "summarise records files: every record a row (a candidate, a second "
                                        "run of a task)");
  report_cmd->add_option("records", report.records, "run folders or records files (records.jsonl, or gzipped)")
      ->required();
  add_choice(report_cmd, "--format", report.format, "table or markdown");
  add_show_compiler(report_cmd, report.summary);
  report_cmd->add_option("--html", report.html,
                         "write one self-contained HTML page (tables, speedup and roofline charts, failures) here");

  pallasbench::export_options export_;
  auto* export_cmd = app.add_subcommand(
      "export", "write runs' records as a dataset folder: data files with one Arrow schema and a README.md card");
  export_cmd->add_option("inputs", export_.inputs, "run folders or records.jsonl files")->required();
  export_cmd->add_option("--to", export_.to, "the dataset folder to write (absent or empty)")->required();
  export_cmd->add_option("--format", export_.format, "data file format")
      ->check(CLI::IsMember({"jsonl", "parquet"}))
      ->capture_default_str();

  pallasbench::merge_options merge;
  auto* merge_cmd = app.add_subcommand(
      "merge",
      "union the records of shard outputs (run/eval --shard I/N) into OUT/records.jsonl, in the order one "
      "unsharded run writes them, copying their artifact files; exit 2 on conflicting records");
  merge_cmd->add_option("out", merge.out, "output folder (its records.jsonl must be absent or empty)")->required();
  merge_cmd->add_option("inputs", merge.inputs, "folders holding records.jsonl (or records files)")->required();

  pallasbench::compare_options compare;
  auto* compare_cmd = app.add_subcommand(
      "compare",
      "compare two sides row by row (task, size, dtype, candidate): SAME/FASTER/SLOWER/AMBIGUOUS on the medians "
      "(a U test across repetitions, else each run's CI95), WALL_CLOCK (host-clock timings: not compared), "
      "BROKE/FIXED, ADDED/REMOVED. Exit 0: nothing SLOWER or BROKE; 1: something is; 2: usage; 3: the harness "
      "failed (--task)");
  compare_cmd
      ->add_option("base", compare.base,
                   "BASE: a records file or a run folder (its records.jsonl), or several comma-separated "
                   "(repetitions); with --task a candidate file")
      ->required();
  compare_cmd->add_option("new", compare.next,
                          "NEW: likewise; with --task optional (then BASE is the suite's kernel of the task and "
                          "this file NEW)");
  compare_cmd
      ->add_option("--threshold", compare.threshold, "relative change of the medians that FASTER/SLOWER must exceed")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  compare_cmd
      ->add_option("--alpha", compare.alpha,
                   "with two runs a side or more: the Mann-Whitney U test's p-value FASTER/SLOWER must be below")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  compare_cmd
      ->add_option("--repetitions", compare.repetitions,
                   fmt::format("records: the runs each side must give; --task: evaluations of each side, "
                               "alternating (default {}; nine or more recommended)",
                               pallasbench::k_default_task_repetitions))
      ->check(CLI::Range(1, 1000));
  compare_cmd->add_option("--task", compare.task,
                          "evaluate BASE and NEW (candidate files) on this task in one run, their timed series "
                          "alternating (A B B A ...) so drift cancels, then compare them (the evaluation flags "
                          "below apply to --task only)");
  add_evaluation(compare_cmd, compare.flags);
  compare_cmd->add_flag("--json", compare.json, "print a JSON object (rows, counts) instead of a markdown table");
  compare_cmd->add_option("--html", compare.html,
                          "also write the comparison as one self-contained HTML page here (both sides' status, "
                          "median and speedup, the change and verdict; rows that changed status first)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : pallasbench::exit_code::usage;
  }
  try {
    if (*list_cmd) return pallasbench::list_command(list);
    if (*filters_cmd) return pallasbench::filters_command(filters);
    if (*run_cmd) return pallasbench::run_command(run);
    if (*eval_cmd) return pallasbench::eval_command(eval);
    if (*report_cmd) return pallasbench::report_command(report);
    if (*export_cmd) pallasbench::export_command(export_);
    if (*merge_cmd) return pallasbench::merge_command(merge);
    if (*compare_cmd) return pallasbench::compare_command(compare);
    if (*artifacts_cmd) return pallasbench::artifacts_command(artifacts);
  } catch (const pallasbench::usage_error& e) {
    fmt::print(std::cerr, "pallasbench: error: {}\n", e.what());
    return pallasbench::exit_code::usage;
  } catch (const pallasbench::record_write_error& e) {
    fmt::print(std::cerr, "pallasbench: error: {}\n", e.what());
    return pallasbench::exit_code::harness;
  } catch (const std::exception& e) {
    fmt::print(std::cerr, "pallasbench: internal error: {}\n", e.what());
    return pallasbench::exit_code::harness;
  }
  return pallasbench::exit_code::usage;
}
