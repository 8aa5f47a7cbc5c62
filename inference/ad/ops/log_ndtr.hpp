#pragma once
#include "inference/ad/var.hpp"

namespace bvi::ad {

// Elementwise log Phi(x), the log standard normal CDF, stable in both tails (math/log_ndtr.hpp:
// no underflow for x << 0, no rounding to log 1 = 0 for x >> 0). Backward: dx += dy phi(x)/Phi(x).
Var log_ndtr(const Var& x);

}  // namespace bvi::ad
