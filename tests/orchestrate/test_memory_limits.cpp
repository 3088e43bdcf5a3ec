// Each process's memory share from the run's budget (memory_limits.hpp): the arithmetic
// docs/architecture.md ("Memory") writes out.
#include "pallasbench/orchestrate/memory_limits.hpp"

#include <stdexcept>

#include <gtest/gtest.h>

namespace pallasbench {
namespace {

memory_request host(std::uint64_t budget, std::size_t lanes, unsigned cores = 2) {
  memory_request r;
  r.budget = budget;
  r.lanes = lanes;
  r.lanes_per_device = lanes;
  r.cores = cores;
  return r;
}

TEST(MemoryLimits, ATracerGetsAQuarterOfALanesShareBetweenTheFloorAndTheCeiling) {
  // 128 GiB over 4 lanes: 32 GiB a lane, a quarter is 8 GiB (the ceiling).
  EXPECT_EQ(plan_memory(host(128 * k_gib, 4)).tracer_bytes, 8 * k_gib);
  // 48 GiB over 4 lanes: 3 GiB.
  EXPECT_EQ(plan_memory(host(48 * k_gib, 4)).tracer_bytes, 3 * k_gib);
  // 100 GiB over 15 lanes on a 16-core host: 1.67 GiB is under the floor (JAX's base, 32 MiB a
  // core for its threads' stacks, the tmpfs).
  EXPECT_EQ(plan_memory(host(100 * k_gib, 15, 16)).tracer_bytes,
            k_tracer_base + 16 * k_tracer_per_core + 2 * k_default_tracer_tmpfs + 2 * k_small_tmpfs);
  // No budget: the ceiling.
  EXPECT_EQ(plan_memory(host(0, 2)).tracer_bytes, 8 * k_gib);
}

TEST(MemoryLimits, TheTrustedRolesMayHoldTheBudgetLessOneTracer) {
  const auto plan = plan_memory(host(20 * k_gib, 2));
  EXPECT_EQ(plan.tracer_bytes, 20 * k_gib / 8);  // a quarter of 10 GiB, above the floor
  EXPECT_EQ(plan.worker_bytes, 20 * k_gib - plan.tracer_bytes);
  EXPECT_EQ(plan_memory(host(0, 2)).worker_bytes, 0u);      // no budget, no limit
  EXPECT_EQ(plan_memory(host(k_gib, 1)).worker_bytes, 0u);  // a budget under one tracer: none either
  auto explicit_limit = host(20 * k_gib, 2);
  explicit_limit.worker_gib = 1.5;
  EXPECT_EQ(plan_memory(explicit_limit).worker_bytes, 3 * k_gib / 2);
}

TEST(MemoryLimits, UnderRlimitsATracersDataIsItsShareLessItsTmpfs) {
  auto r = host(20 * k_gib, 2);
  r.tracer_gib = 1.5;
  r.tmpfs_mib = 64;
  const auto plan = plan_memory(r);
  EXPECT_EQ(plan.tracer_bytes, 3 * k_gib / 2);
  EXPECT_EQ(plan.tmpfs_bytes, 64 * k_mib);
  EXPECT_EQ(plan.tracer_tmpfs_total(), 2 * 64 * k_mib + 2 * k_small_tmpfs);
  EXPECT_EQ(plan.tracer_data(), 3 * k_gib / 2 - 130 * k_mib);
  // Its address space holds the libraries JAX maps besides.
  EXPECT_EQ(plan.tracer_address_space(), plan.tracer_data() + k_tracer_mapped_libraries);
  EXPECT_EQ(plan_memory(host(20 * k_gib, 2)).tmpfs_bytes, k_default_tracer_tmpfs);
}

TEST(MemoryLimits, AShareThatCannotWorkIsRefusedNamingTheFlag) {
  auto small = host(20 * k_gib, 2);
  small.tracer_gib = 0.5;  // two 256 MiB tmpfs and 512 MiB of its own do not fit
  try {
    (void)plan_memory(small);
    FAIL() << "a 0.5 GiB tracer with 256 MiB tmpfs was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--tracer-memory 0.5"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("at least 1.0 GiB"), std::string::npos) << e.what();
  }
  auto share = host(20 * k_gib, 2);
  share.device_share = 1.5;
  EXPECT_THROW((void)plan_memory(share), std::invalid_argument);
  auto tmpfs = host(20 * k_gib, 2);
  tmpfs.tmpfs_mib = 0.5;
  EXPECT_THROW((void)plan_memory(tmpfs), std::invalid_argument);
}

TEST(MemoryLimits, EachProcessOnAGpuGetsAnEvenPartOfWhatTheSharesMayTake) {
  auto r = host(100 * k_gib, 15, 16);
  r.gpu = true;
  r.lanes_per_device = 15;  // one GPU: 30 processes (an executor and a reference a lane)
  EXPECT_DOUBLE_EQ(plan_memory(r).device_share, k_device_memory_for_shares / 30);
  r.lanes_per_device = 2;
  EXPECT_DOUBLE_EQ(plan_memory(r).device_share, k_device_memory_for_shares / 4);
  r.device_share = 0.2;
  EXPECT_DOUBLE_EQ(plan_memory(r).device_share, 0.2);
  EXPECT_EQ(plan_memory(host(100 * k_gib, 2)).device_share, 0.0);  // the CPU: none
}

TEST(MemoryLimits, ALaneAloneOnTheDeviceTakesEveryLanesShare) {
  // The retry of an out-of-memory: an honest module larger than one lane's share of 15 must get
  // what the lanes split (halved between the executor and the reference), not fail again.
  auto r = host(100 * k_gib, 15, 16);
  r.gpu = true;
  r.lanes_per_device = 15;
  EXPECT_DOUBLE_EQ(plan_memory(r).alone_device_share(), k_device_memory_for_shares / 2);
  r.lanes_per_device = 1;  // alone already
  EXPECT_DOUBLE_EQ(plan_memory(r).alone_device_share(), plan_memory(r).device_share);
  r.lanes_per_device = 4;
  r.device_share = 0.5;  // a share given larger than the split: never less than its own
  EXPECT_DOUBLE_EQ(plan_memory(r).alone_device_share(), 0.5);
  EXPECT_EQ(plan_memory(host(100 * k_gib, 2)).alone_device_share(), 0.0);  // the CPU: none
}

TEST(MemoryLimits, ALimitDescribesItselfForMessagesAndRecords) {
  EXPECT_EQ(format_bytes(3 * k_gib / 2), "1.5 GiB");
  EXPECT_EQ(format_bytes(64 * k_mib), "64 MiB");
  const memory_limit limit{memory_mechanism::rlimit, 3 * k_gib / 2, "RLIMIT_AS", "no cgroup v2 here"};
  EXPECT_EQ(limit.describe(), "1.5 GiB (RLIMIT_AS)");
  const auto json = limit.to_json();
  EXPECT_EQ(json.at("mechanism"), "rlimit");
  EXPECT_EQ(json.at("bytes"), 3 * k_gib / 2);
  EXPECT_EQ(json.at("no_cgroup"), "no cgroup v2 here");
  EXPECT_FALSE(memory_limit{}.to_json().contains("no_cgroup"));
  EXPECT_EQ(memory_limit{}.describe(), "no memory limit");
}

}  // namespace
}  // namespace pallasbench
