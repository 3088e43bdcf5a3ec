// The Pallas backends a task may be implemented on (docs/architecture.md, "Backends"): a dimension
// of the work like size and dtype. XLA is the baseline of both.
#pragma once

#include <array>
#include <string_view>
#include <utility>

#include "pallasbench/core/enum_names.hpp"

namespace pallasbench {

// In the order the harness prefers them: Mosaic GPU (plgpu.kernel, where JAX is taking Pallas on
// GPUs) before Triton (pl.pallas_call, deprecated since jax 0.11).
enum class kernel_backend { mosaic_gpu, triton };

// --backend: each task's preferred implementation (Mosaic GPU where it has one, else Triton),
// one backend only (tasks without it are left out), or every implementation a task has.
enum class backend_choice { preferred, mosaic_gpu, triton, all };

template <>
struct enum_names<kernel_backend> {
  static constexpr std::string_view what = "backend";
  static constexpr std::array entries{
      std::pair{kernel_backend::mosaic_gpu, std::string_view("mosaic_gpu")},
      std::pair{kernel_backend::triton, std::string_view("triton")},
  };
};

template <>
struct enum_names<backend_choice> {
  static constexpr std::string_view what = "backend";
  static constexpr std::array entries{
      std::pair{backend_choice::preferred, std::string_view("preferred")},
      std::pair{backend_choice::mosaic_gpu, std::string_view("mosaic")},
      std::pair{backend_choice::triton, std::string_view("triton")},
      std::pair{backend_choice::all, std::string_view("all")},
  };
};

}  // namespace pallasbench
