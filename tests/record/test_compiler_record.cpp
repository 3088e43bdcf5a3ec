#include "pallasbench/record/compiler_record.hpp"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace pallasbench {
namespace {

using nlohmann::json;

const std::filesystem::path k_matmul =
    std::filesystem::path(PALLASBENCH_TEST_DATA) / "fixtures/compiler/h200_2026-11-30/matmul";

// What the worker replies after a GPU capture of the matmul (its files in a scratch folder).
json captured_matmul(const std::filesystem::path& scratch) {
  std::filesystem::create_directories(scratch);
  for (const char* f : {"kernel.ptx", "kernel.sass", "ptxas.txt", "thunk_sequence.txt"})
    std::filesystem::copy_file(k_matmul / f, scratch / f, std::filesystem::copy_options::overwrite_existing);
  return {{"mode", "files"},
          {"dir", scratch.string()},
          {"triton",
           {{{"name", "_body"},
             {"target", "__gpu$xla.gpu.triton"},
             {"num_warps", 4},
             {"num_stages", 3},
             {"grid_x", 256},
             {"grid_y", 1},
             {"grid_z", 1},
             {"ir", "module @_body {}"}}}},
          {"kernel_names", {"_body"}},
          {"ptx", "kernel.ptx"},
          {"sass", "kernel.sass"},
          {"ptxas", "ptxas.txt"},
          {"thunk_sequence", "thunk_sequence.txt"},
          {"unavailable", json::object()},
          {"capture_s", 0.004},
          {"capture_compile_s", 0.31},
          {"tools_s", 0.57},
          {"wait_s", 0.02}};
}

class CompilerRecord : public ::testing::Test {
protected:
  // One folder per test: ctest runs the tests of this fixture in parallel processes.
  std::filesystem::path m_root =
      std::filesystem::temp_directory_path() /
      (std::string("pb_compiler_record_") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
  void SetUp() override { std::filesystem::remove_all(m_root); }
  void TearDown() override { std::filesystem::remove_all(m_root); }
};

TEST_F(CompilerRecord, FilesModeCopiesBesideTheRecordsAndSummarises) {
  const auto out =
      compiler_record(captured_matmul(m_root / "scratch"), m_root / "records", "artifacts/matmul.medium.1");
  ASSERT_TRUE(out["ptx"].is_object());
  EXPECT_EQ(out["ptx"]["path"], "artifacts/matmul.medium.1/kernel.ptx");
  EXPECT_TRUE(std::filesystem::exists(m_root / "records/artifacts/matmul.medium.1/kernel.sass"));
  EXPECT_EQ(out["ptx"]["bytes"], std::filesystem::file_size(k_matmul / "kernel.ptx"));
  EXPECT_TRUE(out["thunk_sequence"].is_string());  // always inline
  EXPECT_EQ(out["triton_ir"][0]["name"], "_body");
  EXPECT_EQ(out["triton_ir"][0]["grid"], json({256, 1, 1}));
  EXPECT_EQ(out["summary"]["tensor_core"], "wgmma");
  EXPECT_EQ(out["summary"]["max_registers"], 95);
  EXPECT_EQ(out["capture_compile_s"], 0.31);  // the background capture's costs stay visible
  EXPECT_EQ(out["tools_s"], 0.57);
  EXPECT_EQ(out["wait_s"], 0.02);
}

TEST_F(CompilerRecord, InlineModeKeepsTextsInTheRecord) {
  auto captured = captured_matmul(m_root / "scratch");
  captured["mode"] = "inline";
  const auto out = compiler_record(captured, {}, "unused");
  // The same object as files mode holds (Arrow-stable), with the text in place of the path.
  ASSERT_TRUE(out["sass"].is_object());
  EXPECT_NE(out["sass"]["text"].get<std::string>().find("HGMMA"), std::string::npos);
  EXPECT_EQ(out["sass"]["bytes"], out["sass"]["text"].get<std::string>().size());
  EXPECT_FALSE(std::filesystem::exists(m_root / "records"));
}

TEST_F(CompilerRecord, CpuCaptureSaysWhyNothingIsThere) {
  const auto out = compiler_record({{"mode", "files"}, {"artifacts_unavailable", "cpu interpret mode"}}, m_root, "x");
  EXPECT_EQ(out["artifacts_unavailable"], "cpu interpret mode");
  EXPECT_TRUE(out["ptx"].is_null());
  EXPECT_TRUE(out["sass"].is_null());
  EXPECT_TRUE(out["summary"].is_null());
}

TEST_F(CompilerRecord, MalformedOutputLeavesTheSummaryOutWithTheReason) {
  auto captured = captured_matmul(m_root / "scratch");
  std::ofstream(m_root / "scratch" / "ptxas.txt") << "ptxas info    : Used many registers\n";
  const auto out = compiler_record(captured, {}, "x");
  EXPECT_TRUE(out["summary"].is_null());
  EXPECT_NE(out["summary_error"].get<std::string>().find("ptxas"), std::string::npos) << out["summary_error"];
}

TEST_F(CompilerRecord, MissingFileIsAnErrorNamingIt) {
  auto captured = captured_matmul(m_root / "scratch");
  std::filesystem::remove(m_root / "scratch" / "kernel.sass");
  EXPECT_THROW(
      {
        try {
          (void)compiler_record(captured, {}, "x");
        } catch (const std::runtime_error& e) {
          EXPECT_NE(std::string(e.what()).find("kernel.sass"), std::string::npos);
          throw;
        }
      },
      std::runtime_error);
}

}  // namespace
}  // namespace pallasbench
