// --gpus: the devices a run's lanes are spread over.
#pragma once

#include <deque>
#include <string>

#include "pallasbench/orchestrate/device_token.hpp"
#include "pallasbench/orchestrate/run_plan.hpp"

namespace pallasbench::detail {

// The GPUs `spec` names ("all", or CUDA indices "0,2" counted in this process's
// CUDA_VISIBLE_DEVICES when it is set), each with the CUDA_VISIBLE_DEVICES entry its workers get
// and its UUID from NVML. usage_error for a malformed list, a repeated index or one the host does
// not have. Without NVML and without CUDA_VISIBLE_DEVICES, "all" is one device left as it is.
[[nodiscard]] std::deque<device_slot> resolve_gpus(const std::string& spec);

// The one device of a run on the CPU.
[[nodiscard]] std::deque<device_slot> cpu_device();

}  // namespace pallasbench::detail
