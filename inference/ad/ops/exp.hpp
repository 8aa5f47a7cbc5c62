#pragma once
#include "inference/ad/var.hpp"

namespace bvi::ad {

// Elementwise e^x. Backward: dx += dy * e^x (the saved output).
Var exp(const Var& x);

}  // namespace bvi::ad
