#pragma once
#include "inference/ad/var.hpp"

namespace bvi::ad {

// Elementwise natural log (NaN below 0, -inf at 0, as std::log). Backward: dx += dy / x.
Var log(const Var& x);

}  // namespace bvi::ad
