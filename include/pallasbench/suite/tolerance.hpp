// A task's correctness bound, as its task file declares it (docs/tasks.md, "Tolerances").
#pragma once

namespace pallasbench {

// |out - ref| <= atol + rtol * |ref| for every element, and ||out - ref|| / ||ref|| <= rel_norm.
// All zero means exact equality.
struct tolerance {
  double atol = 0;
  double rtol = 0;
  double rel_norm = 0;
};

}  // namespace pallasbench
