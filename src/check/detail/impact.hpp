// The sums the input_impact filter reads of one perturbation: how far the output's change
// deviates from the reference's, against the size of the reference's change.
#pragma once

#include "pallasbench/check/filters/filter.hpp"

namespace pallasbench::detail {

struct impact_sums {
  double ref_change = 0, deviation = 0, ref_norm = 0;
  impact_sums& operator+=(const impact_sums& o) {
    ref_change += o.ref_change, deviation += o.deviation, ref_norm += o.ref_norm;
    return *this;
  }
};

// Over elements: the squared change of the reference, the squared deviation of the output's
// change from it, and |ref|^2, leaving out elements whose reference change is not finite. In
// double (each float converts exactly), 4 elements an instruction with AVX2.
[[nodiscard]] impact_sums impact_of(const perturbation& p);

}  // namespace pallasbench::detail
