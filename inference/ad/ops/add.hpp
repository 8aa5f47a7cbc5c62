#pragma once
#include "inference/ad/var.hpp"

namespace bvi::ad {

// a + b with broadcasting. Backward: each input receives the output adjoint, summed over the
// dimensions it was broadcast along.
Var add(const Var& a, const Var& b);
// a - b with broadcasting.
Var subtract(const Var& a, const Var& b);

}  // namespace bvi::ad
