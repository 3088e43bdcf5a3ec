// The timer library through its C API, against fake libcupti builds (no GPU needed).
#include <dlfcn.h>

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

struct timer_library {
  void* handle = dlopen(PALLASBENCH_TIMER_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  using init_fn = int (*)(const char*, char*, std::size_t);
  using mark_fn = int (*)();
  using collect_fn = std::size_t (*)(char*, std::size_t);
  init_fn init = reinterpret_cast<init_fn>(dlsym(handle, "pb_timer_init"));
  mark_fn begin = reinterpret_cast<mark_fn>(dlsym(handle, "pb_timer_begin_sample"));
  mark_fn end = reinterpret_cast<mark_fn>(dlsym(handle, "pb_timer_end_sample"));
  collect_fn collect = reinterpret_cast<collect_fn>(dlsym(handle, "pb_timer_collect"));
  ~timer_library() {
    if (handle) dlclose(handle);
  }
};

TEST(CuptiTimer, RefusesAMissingLibcupti) {
  timer_library timer;
  ASSERT_NE(timer.handle, nullptr) << dlerror();
  char error[512] = {};
  EXPECT_NE(timer.init("/nonexistent/libcupti.so.13", error, sizeof error), 0);
  EXPECT_NE(std::string(error).find("cannot load /nonexistent/libcupti.so.13"), std::string::npos) << error;
}

TEST(CuptiTimer, RefusesAnotherCuptiVersionNamingBoth) {
  timer_library timer;
  char error[512] = {};
  EXPECT_NE(timer.init(PALLASBENCH_FAKE_CUPTI_OLD, error, sizeof error), 0);
  const std::string message = error;
  EXPECT_NE(message.find("reports CUPTI API version 120000"), std::string::npos) << message;
  EXPECT_NE(message.find("built for version 130001"), std::string::npos) << message;
}

TEST(CuptiTimer, GroupsDeliveredRecordsBySample) {
  timer_library timer;
  char error[512] = {};
  ASSERT_EQ(timer.init(PALLASBENCH_FAKE_CUPTI, error, sizeof error), 0) << error;
  for (int i = 0; i < 2; ++i) {  // windows [1000, 2000] and [3000, 4000] on the fake clock
    ASSERT_EQ(timer.begin(), 0);
    ASSERT_EQ(timer.end(), 0);
  }
  EXPECT_NE(timer.end(), 0);  // no open sample
  std::string out(16, '\0');
  const std::size_t needed = timer.collect(out.data(), out.size());
  ASSERT_GT(needed, out.size());  // too small: asks for more, keeps the data
  out.resize(needed);
  ASSERT_EQ(timer.collect(out.data(), out.size()), needed);
  const auto j = nlohmann::json::parse(out.c_str());
  ASSERT_EQ(j["samples"].size(), 2u);
  EXPECT_DOUBLE_EQ(j["samples"][0]["sum_us"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(j["samples"][1]["sum_us"].get<double>(), 0.7);
  EXPECT_DOUBLE_EQ(j["samples"][1]["span_us"].get<double>(), 0.8);
  EXPECT_EQ(j["samples"][1]["kernels"]["triton_add"], 1);
  EXPECT_EQ(j["outside"], 1);  // the memset between the samples (an L2 flush) is excluded
}

}  // namespace
