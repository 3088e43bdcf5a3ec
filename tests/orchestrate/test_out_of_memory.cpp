// Whose failure an out-of-memory is (out_of_memory.hpp): the words that mark one, the module's
// own memory against the lane's share, and a tracer's failure naming the limit it met.
#include "pallasbench/orchestrate/out_of_memory.hpp"

#include <gtest/gtest.h>

namespace pallasbench {
namespace {

TEST(OutOfMemory, TheWordsOfAProcessThatCouldNotGetMemory) {
  EXPECT_TRUE(mentions_out_of_memory("RESOURCE_EXHAUSTED: Out of memory while trying to allocate 40.00GiB."));
  EXPECT_TRUE(mentions_out_of_memory("CUDA_ERROR_OUT_OF_MEMORY: out of memory"));
  EXPECT_TRUE(mentions_out_of_memory("import failed: MemoryError: Unable to allocate 3.00 GiB"));
  EXPECT_TRUE(mentions_out_of_memory("terminate called after throwing an instance of 'std::bad_alloc'"));
  EXPECT_TRUE(mentions_out_of_memory("OSError: [Errno 12] Cannot allocate memory"));
  EXPECT_FALSE(mentions_out_of_memory("the kernel raised: RuntimeError: fake kernel failure"));
  EXPECT_TRUE(mentions_no_space("OSError: [Errno 28] No space left on device: '/tmp/fill-3'"));
  EXPECT_FALSE(mentions_no_space("MemoryError"));
}

TEST(OutOfMemory, AModulesMemoryIsItsArgumentsOutputAndTemporaries) {
  EXPECT_EQ(module_bytes({{"argument", 100}, {"output", 20}, {"temp", 3}}), 123u);
  EXPECT_EQ(module_bytes({{"argument", 100}, {"output", 20}}), std::nullopt);  // no temp: unknown
  EXPECT_EQ(module_bytes({{"argument", -1}, {"output", 20}, {"temp", 3}}), std::nullopt);
  EXPECT_EQ(module_bytes(nlohmann::json::object()), std::nullopt);
}

TEST(OutOfMemory, OnlyAModuleLargerThanTheShareIsTheCandidatesOwnFailure) {
  EXPECT_EQ(blame_out_of_memory(41 * k_gib, 2 * k_gib), oom_blame::candidate);
  EXPECT_EQ(blame_out_of_memory(k_gib, 2 * k_gib), oom_blame::harness);  // it fitted: not its doing
  EXPECT_EQ(blame_out_of_memory(2 * k_gib, 2 * k_gib), oom_blame::harness);
  EXPECT_EQ(blame_out_of_memory(std::nullopt, 2 * k_gib), oom_blame::harness);  // never blamed unmeasured
  EXPECT_EQ(blame_out_of_memory(41 * k_gib, std::nullopt), oom_blame::harness);
}

TEST(OutOfMemory, ATracersMemoryFailureNamesTheLimitItMet) {
  const memory_limit limit{memory_mechanism::rlimit, 3 * k_gib / 2, "RLIMIT_AS 1.4 GiB", ""};
  const auto oom = with_tracer_limits("import failed: MemoryError: Unable to allocate", "", limit, 64 * k_mib, false);
  EXPECT_EQ(oom,
            "import failed: MemoryError: Unable to allocate [out of memory at the tracer's limit: 1.5 GiB "
            "(RLIMIT_AS 1.4 GiB) (--tracer-memory)]");
  const auto full =
      with_tracer_limits("import failed: OSError: [Errno 28] No space left on device", "", limit, 64 * k_mib, false);
  EXPECT_NE(full.find("private /tmp and /dev/shm are full: 64 MiB each (--tracer-tmpfs)"), std::string::npos) << full;
  const memory_limit cgroup{memory_mechanism::cgroup, 2 * k_gib, "cgroup /sys/fs/cgroup/x/tracer-7", ""};
  const auto killed = with_tracer_limits("worker died while running 'trace'", "", cgroup, 64 * k_mib, true);
  EXPECT_NE(killed.find("killed at the tracer's memory limit: 2.0 GiB"), std::string::npos) << killed;
  // From its stderr when the message says nothing (a crash of the process).
  EXPECT_NE(with_tracer_limits("worker died", "std::bad_alloc", limit, 64 * k_mib, false).find("out of memory at"),
            std::string::npos);
  EXPECT_EQ(with_tracer_limits("syntax error", "", limit, 64 * k_mib, false), "syntax error");
}

}  // namespace
}  // namespace pallasbench

namespace pallasbench {
namespace {

TEST(OutOfMemory, TheAllocationXlaCouldNotMakeIsReadFromItsMessage) {
  // As the H100 reported a GPU memory hog that failed to compile (2026-12-06).
  const std::string compile_failed =
      "compiling the module failed: JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate "
      "96.02GiB with allocator GPU_0_bfc on device 0.";
  const auto bytes = requested_allocation(compile_failed);
  ASSERT_TRUE(bytes.has_value());
  EXPECT_NEAR(static_cast<double>(*bytes), 96.02 * 0x1p30, 0x1p20);
  EXPECT_EQ(requested_allocation("Out of memory while trying to allocate 512B"), 512u);
  EXPECT_EQ(requested_allocation("Out of memory while trying to allocate 3.5MiB"), 3670016u);
  EXPECT_FALSE(requested_allocation("RESOURCE_EXHAUSTED: out of memory").has_value());  // no size said
  EXPECT_FALSE(requested_allocation("Out of memory while trying to allocate lots").has_value());
  // Weighed against the lane's share: more than it is the candidate's, an unknown share never is.
  EXPECT_EQ(blame_out_of_memory(bytes, 4ull << 30), oom_blame::candidate);
  EXPECT_EQ(blame_out_of_memory(bytes, std::nullopt), oom_blame::harness);
}

}  // namespace
}  // namespace pallasbench
