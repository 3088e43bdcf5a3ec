// The suite's float dtype axis (--dtype; docs/dtypes.md): every float input and output of a task
// at float32, bfloat16 or float16. Integer inputs and outputs keep their types.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <utility>

#include "pallasbench/core/enum_names.hpp"

namespace pallasbench {

enum class float_dtype { float32, bfloat16, float16 };

template <>
struct enum_names<float_dtype> {
  static constexpr std::string_view what = "dtype";
  static constexpr std::array entries{
      std::pair{float_dtype::float32, std::string_view("float32")},
      std::pair{float_dtype::bfloat16, std::string_view("bfloat16")},
      std::pair{float_dtype::float16, std::string_view("float16")},
  };
};

}  // namespace pallasbench
