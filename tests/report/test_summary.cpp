#include "pallasbench/report/summary.hpp"

#include "pallasbench/report/printer.hpp"

#include <sstream>

#include <gtest/gtest.h>

namespace pallasbench {
namespace {

nlohmann::json record(const std::string& name, const std::string& status, double kernel_us, double ref_us) {
  return {{"kernel_name", name},
          {"level", 1},
          {"size", "medium"},
          {"status", status},
          {"error", status == "ok" ? nlohmann::json(nullptr) : nlohmann::json{{"message", "seed 0: 3 of 4 elements"}}},
          {"result", {{"max_abs_error", 1.5e-7}, {"robustness_passed", status == "ok"}}},
          {"timing",
           {{"timer", "cupti"},
            {"median_us", kernel_us},
            {"reference_median_us", ref_us},
            {"speedup", ref_us / kernel_us}}}};
}

TEST(Summary, RowFromRecord) {
  const auto row = summary_row::from_record(record("relu", "ok", 50, 100));
  EXPECT_EQ(row.task, "relu");
  EXPECT_EQ(row.timer, "cupti");
  ASSERT_TRUE(row.speedup.has_value());
  EXPECT_DOUBLE_EQ(*row.speedup, 2.0);
}

TEST(Summary, ALowPrecisionRowNamesItsDtypeAndTheTableWidens) {
  auto bf16 = record("relu", "ok", 50, 100);
  bf16["dtype"] = "bfloat16";
  EXPECT_EQ(summary_row::from_record(bf16).size, "medium/bfloat16");
  auto f32 = record("relu", "ok", 50, 100);
  f32["dtype"] = "float32";
  EXPECT_EQ(summary_row::from_record(f32).size, "medium");
  std::ostringstream out;
  summary_printer(out, summary_format::table, {})
      .run_finished({summary_row::from_record(f32), summary_row::from_record(bf16)}, {});
  const auto text = out.str();
  EXPECT_NE(text.find("relu  medium           ok"), std::string::npos) << text;
  EXPECT_NE(text.find("relu  medium/bfloat16  ok"), std::string::npos) << text;
}

TEST(Summary, PassedIsTheRecordsOwnField) {
  auto r = record("relu", "ok", 50, 100);
  r["passed"] = false;  // the record's verdict stands, whatever the row could re-derive
  EXPECT_FALSE(summary_row::from_record(r).passed);
  r["passed"] = true;
  EXPECT_TRUE(summary_row::from_record(r).passed);
}

TEST(Summary, ARecordWithoutTheFieldIsReadThroughTheOneDefinition) {
  EXPECT_TRUE(summary_row::from_record(record("relu", "ok", 50, 100)).passed);
  auto not_robust = record("relu", "ok", 50, 100);
  not_robust["result"]["robustness_passed"] = false;
  EXPECT_FALSE(summary_row::from_record(not_robust).passed);
  EXPECT_FALSE(summary_row::from_record(record("relu", "incorrect", 50, 100)).passed);
}

TEST(Summary, TheRatioIsTheRecordsSpeedupNeverItsMediansDivided) {
  auto r = record("relu", "ok", 50, 100);
  r["timing"]["timer"] = "wall";  // interpret mode: medians, but the record claims no speedup
  r["timing"].erase("speedup");
  EXPECT_FALSE(summary_row::from_record(r).speedup.has_value());
  r["timing"]["speedup"] = 3.0;
  EXPECT_DOUBLE_EQ(*summary_row::from_record(r).speedup, 3.0);
}

TEST(Summary, MissingTimingHasNoRatio) {
  auto r = record("relu", "crashed", 0, 0);
  r.erase("timing");
  EXPECT_FALSE(summary_row::from_record(r).speedup.has_value());
}

TEST(Summary, TableCountsStatuses) {
  std::ostringstream out;
  print_table(out, {summary_row::from_record(record("relu", "ok", 50, 100)),
                    summary_row::from_record(record("add", "incorrect", 50, 100)),
                    summary_row::from_record(record("exp", "ok", 50, 100))});
  EXPECT_NE(out.str().find("3 tasks: 1 incorrect, 2 ok"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("seed 0: 3 of 4 elements"), std::string::npos);
}

TEST(Summary, ASweepIsTalliedPerSizeAndDtype) {
  auto small = record("relu", "ok", 50, 100);
  small["size"] = "small";
  auto bf16 = record("relu", "incorrect", 50, 100);
  bf16["dtype"] = "bfloat16";
  std::ostringstream out;
  print_table(out, {summary_row::from_record(small), summary_row::from_record(record("exp", "ok", 50, 100)),
                    summary_row::from_record(bf16)});
  EXPECT_NE(out.str().find("small: 1 of 1 passed; medium: 1 of 1 passed; medium/bfloat16: 0 of 1 passed\n"),
            std::string::npos)
      << out.str();
  std::ostringstream one;  // one size and dtype: no such line
  print_table(one, {summary_row::from_record(record("relu", "ok", 50, 100))});
  EXPECT_EQ(one.str().find(" of 1 passed;"), std::string::npos) << one.str();
}

// Four candidates of one task (eval --candidates, eval --batch): each line and row names its
// candidate (a batch's by request id, a file by its name), and the summary counts candidates.
TEST(Summary, CandidatesAreNamedAndCountedAsCandidates) {
  std::vector<summary_row> rows;
  for (const auto* name : {"fast.py", "slow.py"}) {
    auto r = record("softmax", "ok", 50, 100);
    r["candidate"] = {{"kind", "user"}, {"path", std::string("/home/me/") + name}};
    rows.push_back(summary_row::from_record(r));
  }
  for (const auto* id : {"gen-0", "gen-1"}) {
    auto r = record("softmax", "incorrect", 50, 100);
    r["candidate"] = {{"kind", "user"}, {"path", std::string("request:") + id}};
    r["request_id"] = id;
    rows.push_back(summary_row::from_record(r));
  }
  EXPECT_NE(progress_line(1, 4, rows[0], 1.0).find("softmax (medium) fast.py ok"), std::string::npos);
  EXPECT_NE(progress_line(4, 4, rows[3], 1.0).find("softmax (medium) gen-1 incorrect"), std::string::npos);
  std::ostringstream out;
  print_table(out, rows);
  EXPECT_NE(out.str().find("slow.py"), std::string::npos) << out.str();  // the candidate column
  EXPECT_NE(out.str().find("gen-0"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("4 candidates of 1 task: 2 incorrect, 2 ok"), std::string::npos) << out.str();
}

// An incorrect record's progress line shows its first failed case's hint and worst elements.
TEST(Summary, AnIncorrectRecordShowsItsHintAndWorstElements) {
  auto r = record("softmax", "incorrect", 50, 100);
  r["correctness"] = {{"seeds",
                       {{{"passed", true}, {"worst", nlohmann::json::array()}, {"hint", ""}},
                        {{"passed", false},
                         {"hint", "the output is the reference with axes 0 and 1 swapped: a transposed result"},
                         {"worst",
                          {{{"index", {3, 7}}, {"candidate", 0.25}, {"reference", 0.75}, {"error", 0.5}},
                           {{"index", {1, 0}}, {"reference", 0.5}}}}}}}};  // a NaN candidate is left out
  const auto text = progress_line(1, 1, summary_row::from_record(r), 1.0);
  EXPECT_NE(text.find("\n    hint: the output is the reference with axes 0 and 1 swapped"), std::string::npos) << text;
  EXPECT_NE(text.find("index"), std::string::npos) << text;
  EXPECT_NE(text.find("[3, 7]                     0.25           0.75          0.5"), std::string::npos) << text;
  EXPECT_NE(text.find("[1, 0]                  nan/inf            0.5          inf"), std::string::npos) << text;
  r["status"] = "ok";  // an ok record shows none
  EXPECT_EQ(progress_line(1, 1, summary_row::from_record(r), 1.0).find("hint"), std::string::npos);
}

TEST(Summary, MarkdownHasHeaderAndRows) {
  std::ostringstream out;
  print_markdown(out, {summary_row::from_record(record("relu", "ok", 50, 100))});
  EXPECT_NE(out.str().find("| relu | 1 | medium | ok | yes | 1.50e-07 | 50.0 us | 100.0 us | 2.00x |"),
            std::string::npos)
      << out.str();
  EXPECT_THROW((void)parse_enum<summary_format>("html"), std::invalid_argument);
}

// A record carrying a static summary as summarize_compiler_output writes it (the matmul capture's values).
nlohmann::json record_with_compiler_summary() {
  auto r = record("matmul", "ok", 50, 100);
  r["artifacts"]["summary"] = {{"tensor_core", "wgmma"},
                               {"max_registers", 95},
                               {"spills", false},
                               {"kernels",
                                {{{"name", "_body"},
                                  {"threads_per_block", 128},
                                  {"shared_memory_bytes", 57344},
                                  {"widest_global_load_bytes", 16},
                                  {"tma_loads", 0}}}}};
  return r;
}

// The cells after the ratio column of the row of `task`.
std::string compiler_cells_of(const std::string& table, const std::string& task) {
  const auto row = table.substr(table.find("\n" + task + " ") + 1);
  return row.substr(0, row.find('\n'));
}

TEST(Summary, CompilerCellsFromTheStaticSummary) {
  const auto cells = summary_row::from_record(record_with_compiler_summary()).compiler;
  EXPECT_EQ(cells.registers, "95");
  EXPECT_EQ(cells.spills, "no");
  EXPECT_EQ(cells.tensor_core, "wgmma");
  EXPECT_EQ(cells.load_width, "16");
  EXPECT_EQ(cells.threads, "128");
  EXPECT_EQ(cells.shared_memory, "56 KiB");
}

TEST(Summary, CompilerCellsOfSeveralKernelsAndTmaLoads) {
  nlohmann::json summary = {{"tensor_core", "none"},
                            {"max_registers", 64},
                            {"spills", true},
                            {"kernels",
                             {{{"threads_per_block", 256},
                               {"shared_memory_bytes", 128},
                               {"tma_loads", 2},
                               {"widest_global_load_bytes", nullptr}},
                              {{"threads_per_block", 128},
                               {"shared_memory_bytes", 128},
                               {"tma_loads", 1},
                               {"widest_global_load_bytes", nullptr}}}}};
  const auto cells = compiler_cells::from_summary(summary);
  EXPECT_EQ(cells.spills, "yes");
  EXPECT_EQ(cells.load_width, "tma");
  EXPECT_EQ(cells.threads, "256/128");
  EXPECT_EQ(cells.shared_memory, "128 B");
}

TEST(Summary, RecordWithoutStaticSummaryShowsDashes) {
  auto cpu = record("relu", "ok", 50, 100);
  cpu["config"] = {{"device", "cpu"}};
  cpu["artifacts"] = {{"jaxpr_dag", nlohmann::json::object()}};  // interpret mode: no compiler output
  const auto cells = summary_row::from_record(cpu).compiler;
  for (const auto* cell :
       {&cells.registers, &cells.spills, &cells.tensor_core, &cells.load_width, &cells.threads, &cells.shared_memory})
    EXPECT_EQ(*cell, "-");
}

TEST(Summary, TableShowsCompilerColumnsOnRequest) {
  const std::vector rows = {summary_row::from_record(record_with_compiler_summary()),
                            summary_row::from_record(record("relu", "ok", 50, 100))};
  std::ostringstream plain, shown;
  print_table(plain, rows);
  print_table(shown, rows, {.show_compiler = true});
  EXPECT_EQ(plain.str().find("tensor-core"), std::string::npos) << plain.str();
  EXPECT_NE(shown.str().find("regs  spills  tensor-core  ld width  threads      smem"), std::string::npos)
      << shown.str();
  EXPECT_NE(compiler_cells_of(shown.str(), "matmul").find("  95  no      wgmma              16      128    56 KiB  "),
            std::string::npos)
      << shown.str();
  EXPECT_NE(compiler_cells_of(shown.str(), "relu").find("   -  -       -                   -        -         -  "),
            std::string::npos)
      << shown.str();
}

TEST(Summary, MarkdownShowsCompilerColumnsOnRequest) {
  std::ostringstream out;
  print_markdown(out, {summary_row::from_record(record_with_compiler_summary())}, {.show_compiler = true});
  EXPECT_NE(out.str().find("| ratio (ref/kernel) | regs | spills | tensor-core | ld width | threads | smem |"),
            std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("| 2.00x | 95 | no | wgmma | 16 | 128 | 56 KiB |"), std::string::npos) << out.str();
}

TEST(Summary, AFailureIsCutAtAWord) {
  EXPECT_EQ(first_line("short\nsecond line", 100), "short");
  const std::string message =
      "Mosaic GPU lowering failed: ValueError: Mosaic GPU kernel exceeds available shared memory";
  EXPECT_EQ(first_line(message, 60), "Mosaic GPU lowering failed: ValueError: Mosaic GPU kernel...");
  EXPECT_EQ(first_line(std::string(120, 'x'), 50), std::string(47, 'x') + "...");  // one word: cut inside it
}

TEST(Summary, ProgressLineNamesTheCandidateAndTeachesALoweringFailure) {
  auto r = record("softmax", "compile_error", 0, 0);
  r["candidate"] = {{"kind", "user"}, {"path", "/somewhere/mosaic_softmax.py"}};
  r["error"] = {{"message",
                 "Mosaic GPU lowering failed: ValueError: Mosaic GPU kernel exceeds available shared "
                 "memory: smem_bytes=264200 > max_smem_bytes=232448"},
                {"lowering",
                 {{"backend", "mosaic_gpu"},
                  {"chosen_by", "plgpu.kernel"},
                  {"candidate_line", "mosaic_softmax.py:30 in kernel: return plgpu.kernel("},
                  {"fixes", {"smaller blocks", "docs/writing_candidates.md"}}}}};
  const auto text = progress_line(1, 2, summary_row::from_record(r), 2.0);
  EXPECT_EQ(
      text,
      "[1/2] softmax (medium) mosaic_softmax.py compile_error  Mosaic GPU lowering failed: ValueError: Mosaic GPU "
      "kernel exceeds available shared memory:...  2.0 s\n"
      "    Mosaic GPU lowering failed: ValueError: Mosaic GPU kernel exceeds available shared memory: "
      "smem_bytes=264200 > max_smem_bytes=232448\n"
      "    backend: Mosaic GPU - plgpu.kernel\n"
      "    at: mosaic_softmax.py:30 in kernel: return plgpu.kernel(\n"
      "    fix: smaller blocks\n"
      "    fix: docs/writing_candidates.md");
}

TEST(Summary, ProgressLine) {
  const auto line = progress_line(3, 38, summary_row::from_record(record("relu", "ok", 50, 100)), 2.25);
  EXPECT_EQ(line, "[3/38] relu (medium) ok  robust yes  max|err| 1.50e-07  kernel 50.0 us  xla 100.0 us  2.2 s");
}

}  // namespace
}  // namespace pallasbench
