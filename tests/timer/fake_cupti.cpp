// A stand-in libcupti for the timer library's tests: the entry points it resolves, a version
// chosen at build time, and a flush that delivers synthetic activity records.
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cupti_activity.h>
#include <cupti_result.h>
#include <cupti_version.h>

namespace {
CUpti_BuffersCallbackRequestFunc g_request = nullptr;
CUpti_BuffersCallbackCompleteFunc g_complete = nullptr;
uint64_t g_clock = 1'000;
}  // namespace

extern "C" {

CUptiResult CUPTIAPI cuptiGetVersion(uint32_t* version) {
  *version = FAKE_CUPTI_VERSION;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult, const char** text) {
  *text = "fake error";
  return CUPTI_SUCCESS;
}

// The clock advances 1000 ns per read: sample windows are [1000, 2000], [3000, 4000], ...
CUptiResult CUPTIAPI cuptiGetTimestamp(uint64_t* timestamp) {
  *timestamp = g_clock;
  g_clock += 1'000;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind) { return CUPTI_SUCCESS; }
CUptiResult CUPTIAPI cuptiActivityDisable(CUpti_ActivityKind) { return CUPTI_SUCCESS; }

CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc request,
                                                    CUpti_BuffersCallbackCompleteFunc complete) {
  g_request = request;
  g_complete = complete;
  return CUPTI_SUCCESS;
}

// Records are packed back to back as CUpti_ActivityKernel10 (kernels) or CUpti_ActivityMemset4.
CUptiResult CUPTIAPI cuptiActivityGetNextRecord(uint8_t* buffer, size_t valid, CUpti_Activity** record) {
  uint8_t* next = *record ? reinterpret_cast<uint8_t*>(*record) + ((*record)->kind == CUPTI_ACTIVITY_KIND_MEMSET
                                                                       ? sizeof(CUpti_ActivityMemset4)
                                                                       : sizeof(CUpti_ActivityKernel10))
                          : buffer;
  if (next >= buffer + valid) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *record = reinterpret_cast<CUpti_Activity*>(next);
  return CUPTI_SUCCESS;
}

// Delivers, on the first flush only (as CUPTI delivers each record once): a kernel inside the
// first sample window, a memset between windows (a flush), and two kernels inside the second.
CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t) {
  static bool delivered = false;
  if (delivered) return CUPTI_SUCCESS;
  delivered = true;
  uint8_t* buffer = nullptr;
  size_t size = 0, max_records = 0;
  g_request(&buffer, &size, &max_records);
  size_t used = 0;
  auto kernel = [&](const char* name, uint64_t start, uint64_t end) {
    CUpti_ActivityKernel10 k{};
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.name = name;
    k.start = start;
    k.end = end;
    std::memcpy(buffer + used, &k, sizeof k);
    used += sizeof k;
  };
  kernel("triton_relu", 1'100, 1'600);
  CUpti_ActivityMemset4 m{};
  m.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  m.start = 2'200;
  m.end = 2'900;
  std::memcpy(buffer + used, &m, sizeof m);
  used += sizeof m;
  kernel("triton_relu", 3'100, 3'400);
  kernel("triton_add", 3'500, 3'900);
  g_complete(nullptr, 0, buffer, size, used);
  return CUPTI_SUCCESS;
}

}  // extern "C"
